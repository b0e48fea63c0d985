/**
 * Names a user writes are data, never `Object.prototype` members (issue 9 item 6): agent files,
 * settings keys, frontmatter keys and tool names called `constructor`, `__proto__`, `toString` …
 * load, resolve and toggle like any other name.
 */
import { describe, expect, it } from "vitest";
import { normalizeCapability } from "../../src/core/values.ts";
import { resolve } from "../../src/resolve/resolve.ts";
import { spawnReader } from "../../src/resolve/spawn-reader.ts";
import { filterByCapability, toolKind } from "../../src/resolve/tools.ts";
import type { LoadResult } from "../../src/files/types.ts";
import { catalog, parent } from "../resolve/support/build.ts";
import { layout, where } from "./fixture.ts";

const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"];

function resolveType(loaded: LoadResult, type: string) {
	return resolve({ request: { prompt: "go" }, type, loaded, parent: parent(), models: catalog(), reader: spawnReader, toolKinds: loaded.settings.toolKinds });
}

describe("prototype names", () => {
	it("load as definitions and resolve like any other name", () => {
		const files: Record<string, string> = {};
		for (const name of NAMES) files[`project/.pi/agents/${name}.md`] = `---\ndescription: The ${name} agent\n---\nBe ${name}.\n`;
		const r = layout(files).load();
		expect(r.diagnostics).toEqual([]);
		for (const name of NAMES) {
			expect(r.definitions.get(name.toLowerCase())?.keys.description?.value).toBe(`The ${name} agent`);
			const resolved = resolveType(r, name);
			expect(resolved.refused).toBeNull();
			expect(resolved.config?.standingInstructions).toBe(`Be ${name}.`);
		}
	});

	it("are settings keys: toggles, pins and inline roles and personas by those names", () => {
		const l = layout({
			"project/.pi/agents/constructor.md": "Build.\n",
			"project/.pi/agents/__proto__.md": "Proto.\n",
			// Written by hand: JSON.stringify of an object literal cannot hold a __proto__ key.
			"project/.pi/subagents.json":
				'{"toggle": {"__proto__": false}, "models": {"constructor": "test/model-b"}, "thinking": {"constructor": "high"},' +
				' "roles": {"constructor": {"prompt": "Role for constructor."}}, "personas": {"toString": {"instructions": "Be a string."}}}',
		});
		const r = l.load();
		expect(where(r)).toEqual([]);
		expect(r.settings.toggle.__proto__?.value).toBe(false);
		expect(Object.keys(r.settings.toggle)).toEqual(["__proto__"]);
		expect(resolveType(r, "__proto__").refused?.code).toBe("disabled-type");
		const built = resolveType(r, "constructor");
		expect(built.refused).toBeNull();
		expect(built.config?.model).toBe("test/model-b");
		expect(built.config?.reasoningEffort).toBe("high");
		expect(r.roles.get("constructor")?.body?.value).toBe("Role for constructor.");
		expect(r.personas.get("tostring")?.body?.value).toBe("Be a string.");
		// A type with no pin does not find Object.prototype's members either.
		expect(resolveType(r, "explore").refused).toBeNull();
		expect(r.settings.models.toString).toBeUndefined();
	});

	it("as frontmatter keys are unknown keys, positioned, never a crash", () => {
		const l = layout({
			"project/.pi/agents/odd.md": "---\nconstructor: x\n__proto__: y\ntoString: z\ndescription: Odd\n---\nOdd.\n",
			"project/.pi/roles/odd.md": "---\nconstructor: x\nvalueOf: 1\n---\nRole.\n",
		});
		const r = l.load();
		expect(where(r)).toEqual([
			".pi/agents/odd.md:2:1 unknown-key",
			".pi/agents/odd.md:3:1 unknown-key",
			".pi/agents/odd.md:4:1 unknown-key",
			".pi/roles/odd.md:2:1 unknown-key",
			".pi/roles/odd.md:3:1 unknown-key",
		]);
		expect(r.definitions.get("odd")?.keys.description?.value).toBe("Odd");
	});

	it("as tool names and enumerated values are nothing but unknown names", () => {
		for (const name of ["constructor", "__proto__", "toString"]) {
			expect(toolKind(name)).toBeNull();
			expect(normalizeCapability(name)).toBeNull();
			expect(filterByCapability([name, "read"], "read-only").droppedUnknown).toEqual([name]);
		}
		const kinds: Record<string, "read"> = Object.create(null);
		kinds["__proto__"] = "read";
		expect(toolKind("__proto__", kinds)).toBe("read");
	});
});
