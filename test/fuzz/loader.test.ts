/**
 * Fuzzing the loader (issue 9 "Must show"): `loadAll` over random project and agent dirs —
 * arbitrary frontmatter, TOML, JSON settings, random bytes, deep nesting, alias bombs, prototype
 * names — never throws, returns output bounded by its input, and positions every diagnostic.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { loadAll } from "../../src/files/load.ts";
import { listEntries } from "../../src/hosts/cli/list-command.ts";
import { subagentDescription } from "../../src/hosts/pi/tools.ts";
import { assertBounded, assertPositioned, FUZZ_TIMEOUT, params, sandbox, tree } from "./support.ts";

describe("fuzz: loadAll", () => {
	it(
		"never throws, stays bounded and positions every diagnostic",
		() => {
			const box = sandbox();
			fc.assert(
				fc.property(tree, fc.boolean(), (t, projectTrusted) => {
					const written = box.write(t);
					const loaded = loadAll({ cwd: box.project, agentDir: box.agent, homeDir: box.home, projectTrusted });
					assertPositioned(loaded.diagnostics);
					const rows = listEntries(loaded);
					const description = subagentDescription(loaded);
					assertBounded({ loaded, rows, description }, written, loaded.diagnostics.length);
				}),
				params(40),
			);
		},
		FUZZ_TIMEOUT,
	);
});
