-- Every evaluation cycle rewrites each enabled policy's progress (evaluated_until and the run
-- state, src/evaluation/progress.ts), none of which is indexed. Free room on each page lets
-- Postgres keep the new row version on the same page (a HOT update): no entry in the four
-- indexes of policies per policy per cycle, and the old version pruned as the page is read
-- again, without waiting for a vacuum. Pages written from now on keep that room.
ALTER TABLE policies SET (fillfactor = 50);
