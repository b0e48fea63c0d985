/**
 * The run record file's format (ADR 0068), shared by the writer (run-store.ts) and the reader
 * (run-reader.ts) so neither imports the other.
 */

/** The format of a record file; another version is skipped (written by another cadre). */
export const RECORD_VERSION = 1;
/** A record's file name is `<run id>` plus this. */
export const RECORD_SUFFIX = ".run.json";
/** The largest record file read (and written): 4 MiB. */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024;
