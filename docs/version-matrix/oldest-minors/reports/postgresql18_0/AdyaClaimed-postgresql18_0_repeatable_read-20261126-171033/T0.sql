-- T0 of AdyaClaimed: run the steps in the order of the step numbers across the scripts.
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ;
/* step  1 */ BEGIN;  -- 0 row(s) affected
/* step  5 */ SELECT "txp_rid", "txp_wl", "c2", "c3" FROM "t0";  -- 2 row(s): (1, '0', 'c', 1) (2, '0', 'y', 8)
/* step  6 */ SELECT * FROM "t0";  -- 2 row(s): ('c', 1, 1, '0') ('y', 8, 2, '0')
/* step  7 */ SELECT "txp_rid", "txp_wl", "c2", "c3" FROM "t0";  -- 2 row(s): (1, '0', 'c', 1) (2, '0', 'y', 8)
/* step  8 */ UPDATE "t0" SET "c2" = 'a', "txp_wl" = "txp_wl" || ',1' WHERE "c3" = 8 RETURNING "txp_rid", "txp_wl", "c2", "c3";  -- 1 row(s): (2, '0,1', 'a', 8)
/* step  9 */ COMMIT;  -- 0 row(s) affected
