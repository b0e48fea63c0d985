/**
 * Child-process half of `loadIsolated` (./isolated.ts): loads the files for the layout named on the
 * command line, reads every `prompt_file` / `instructions_file` the way a spawn does, and prints
 * what came out as JSON. Run with a memory and time limit, so a read that never ends fails a test
 * instead of stalling the machine.
 */
import { loadAll } from "../../../src/files/load.ts";
import { readConfined } from "../../../src/files/read-confined.ts";
import type { FileRef, LoadOptions } from "../../../src/files/types.ts";
import { listEntries } from "../../../src/hosts/cli/list-command.ts";

const options = JSON.parse(process.argv[2] ?? "{}") as LoadOptions;
const loaded = loadAll(options);
const refs: FileRef[] = [];
for (const role of loaded.roles.values()) if (role.keys.prompt_file) refs.push(role.keys.prompt_file.value);
for (const persona of loaded.personas.values()) if (persona.keys.instructions_file) refs.push(persona.keys.instructions_file.value);
const reads = refs.map((ref) => ({ written: ref.written, read: readConfined(ref) }));
process.stdout.write(
	JSON.stringify({
		diagnostics: loaded.diagnostics,
		entries: listEntries(loaded).map((e) => ({ name: e.name, kind: e.kind, description: e.description })),
		reads,
	}),
);
