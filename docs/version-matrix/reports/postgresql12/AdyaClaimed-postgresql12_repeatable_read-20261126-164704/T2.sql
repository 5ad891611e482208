-- T2 of AdyaClaimed: run the steps in the order of the step numbers across the scripts.
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ;
/* step 11 */ BEGIN;  -- 0 row(s) affected
/* step 12 */ SELECT * FROM "t0";  -- 2 row(s): ('c', 0, 1, '0,2') ('a', 8, 2, '0,1')
/* step 13 */ COMMIT;  -- 0 row(s) affected
