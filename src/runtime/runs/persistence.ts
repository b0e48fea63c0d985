/**
 * When a run's record is written (ADR 0068): asks are coalesced and written off the spawn path
 * after `saveDelayMs`, one write of a run at a time; the end is written at once (`saveEnd`), and
 * an end that could not be written is written again after the next write that works.
 */
import type { Internal, RegistryState } from "./state.ts";
import type { RecordWriter } from "./types.ts";

const failed = (error: unknown) => `the run record could not be saved: ${(error as Error).message}`;

function flush(internal: Internal, writer: RecordWriter): void {
	internal.saveTimer = null;
	internal.writing = (async () => {
		while (internal.dirty) {
			internal.dirty = false;
			internal.record.persistError = await writer.save(internal.record).catch(failed);
		}
		internal.writing = null;
	})();
}

/** Ask for the run's record to be written (coalesced, off the spawn path). */
export function save(state: RegistryState, internal: Internal): void {
	const records = state.records;
	if (!records) return;
	internal.savedAt = Date.now();
	internal.dirty = true;
	if (internal.writing || internal.saveTimer) return;
	internal.saveTimer = setTimeout(() => flush(internal, records), state.saveDelayMs);
	internal.saveTimer.unref?.();
}

function writeNow(internal: Internal, writer: RecordWriter): boolean {
	try {
		internal.record.persistError = writer.saveNow(internal.record);
	} catch (error) {
		internal.record.persistError = failed(error);
	}
	return internal.record.persistError === null;
}

/** Writes again the ended runs whose last write failed, until one fails again. */
export function retryUnsaved(state: RegistryState, writer: RecordWriter): void {
	for (const internal of state.unsaved) {
		if (!writeNow(internal, writer)) return;
		state.unsaved.delete(internal);
	}
}

/** Write the end (call after the write in flight, if any, has settled): it is the last one. */
export function saveEnd(state: RegistryState, internal: Internal): void {
	const records = state.records;
	if (!records) return;
	if (internal.saveTimer) clearTimeout(internal.saveTimer);
	internal.saveTimer = null;
	internal.dirty = false;
	if (writeNow(internal, records)) retryUnsaved(state, records);
	else state.unsaved.add(internal);
}
