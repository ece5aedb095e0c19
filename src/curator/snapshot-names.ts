/** The names of snapshots on disk, apart from the snapshot code (start-up checks read them cheaply). */

/** A snapshot id: UTC with dashes, `2026-05-01T13-05-42Z`, plus `-01`, `-02`… on a collision. */
export const SNAPSHOT_ID_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z(-\d{2})?$/;

/** The archive's file name inside a snapshot directory. */
export const SNAPSHOT_ARCHIVE = "skills.tar.gz";
