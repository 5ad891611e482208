-- T1 of AdyaClaimed: run the steps in the order of the step numbers across the scripts.
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ;
/* step  2 */ BEGIN;  -- 0 row(s) affected
/* step  3 */ SELECT "txp_rid", "txp_wl", "c2", "c3" FROM "t0";  -- 2 row(s): (1, '0', 'c', 1) (2, '0', 'y', 8)
/* step  4 */ UPDATE "t0" SET "c3" = 0, "txp_wl" = "txp_wl" || ',2' WHERE "c2" <> 'y' RETURNING "txp_rid", "txp_wl", "c2", "c3";  -- 1 row(s): (1, '0,2', 'c', 0)
/* step 10 */ COMMIT;  -- 0 row(s) affected
