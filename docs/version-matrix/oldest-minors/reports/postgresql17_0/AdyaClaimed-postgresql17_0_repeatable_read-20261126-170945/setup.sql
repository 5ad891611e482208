CREATE TABLE "t0" ("c2" TEXT, "c3" BIGINT NOT NULL, "txp_rid" BIGINT, "txp_wl" TEXT NOT NULL);
INSERT INTO "t0" ("c2", "c3", "txp_rid", "txp_wl") VALUES ('c', 1, 1, '0'), ('y', 8, 2, '0');
