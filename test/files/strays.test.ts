/**
 * Files in a kind folder that are not entries (issue 9 item 8, ADR 0062): a README is skipped and
 * listed as skipped; a `.toml` in `agents/` is ignored with a warning (definitions are Markdown).
 */
import { describe, expect, it } from "vitest";
import { layout, where } from "./fixture.ts";

describe("strays in kind folders", () => {
	it("skips README.md in any case, in every kind folder of both scopes, and lists it as skipped", () => {
		const l = layout({
			"project/.pi/agents/README.md": "# Agents\n\nThese are our agents.\n",
			"project/.pi/roles/readme.md": "Roles live here.\n",
			"project/.pi/personas/ReadMe.MD": "Personas.\n",
			"agent/agents/README.md": "# My agents\n",
			"project/.pi/agents/scout.md": "Scout.\n",
		});
		const r = l.load();
		expect(r.diagnostics).toEqual([]);
		expect([...r.definitions.keys()].sort()).toEqual(["explore", "general-purpose", "plan", "scout"]);
		expect(r.roles.size).toBe(0);
		expect(r.personas.size).toBe(0);
		expect(r.skipped.map((s) => s.path)).toEqual([
			".pi/agents/README.md",
			`${l.agent}/agents/README.md`,
			".pi/roles/readme.md",
			".pi/personas/ReadMe.MD",
		]);
		expect(r.skipped[0]?.reason).toMatch(/README/);
	});

	it("keeps a file that only starts with README", () => {
		const r = layout({ "project/.pi/agents/readme-writer.md": "Writes READMEs.\n" }).load();
		expect(r.definitions.has("readme-writer")).toBe(true);
		expect(r.skipped).toEqual([]);
	});

	it("ignores a .toml definition with a warning saying what to do, and it is no twin of the .md", () => {
		const l = layout({
			"project/.pi/agents/scout.toml": 'description = "Scout"\n',
			"project/.pi/agents/scout.md": "Scout.\n",
			"project/.pi/agents/other.toml": 'description = "Other"\n',
		});
		const r = l.load();
		expect(where(r)).toEqual([".pi/agents/other.toml:1:1 ignored-file", ".pi/agents/scout.toml:1:1 ignored-file"]);
		const d = r.diagnostics[0];
		expect(d?.severity).toBe("warning");
		expect(d?.message).toMatch(/Markdown/);
		expect(d?.hint).toMatch(/other\.md/);
		expect(r.definitions.has("scout")).toBe(true);
		expect(r.definitions.has("other")).toBe(false);
	});
});
