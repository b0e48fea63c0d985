/**
 * The TUI says whether a child ran sandboxed and what the sandbox blocked (issue 27): the
 * conversation viewer's header, the child list's row and the view of a result read back.
 */
import { describe, expect, it } from "vitest";
import { childListLines } from "../../src/hosts/pi/ui/child-list.ts";
import { viewerHeader } from "../../src/hosts/pi/ui/conversation-viewer.ts";
import { viewOfRecord, viewOfResult } from "../../src/hosts/pi/ui/run-view.ts";
import { plainStyle } from "../../src/hosts/pi/ui/text.ts";
import { NOW, record, result } from "./support.ts";

const blocked = { severity: "warning" as const, file: null, line: null, column: null, code: "sandbox-blocked" as const, message: "the sandbox blocked read: read /home/me/.ssh/id_rsa", hint: "widen" };
const sandboxed = (overrides = {}) => {
	const base = record();
	return record({ config: { ...base.config, sandboxed: true }, ...overrides });
};

describe("sandbox marks in the TUI", () => {
	it("the viewer's header says sandboxed and lists what it blocked", () => {
		const text = viewerHeader(sandboxed({ diagnostics: [blocked] }), 160, plainStyle).join("\n");
		expect(text).toMatch(/· sandboxed\n/);
		expect(text).toContain("the sandbox blocked 1: read: read /home/me/.ssh/id_rsa");
	});

	it("an unsandboxed child says so; a run from before the sandbox says nothing", () => {
		const base = record();
		expect(viewerHeader(record({ config: { ...base.config, sandboxed: false } }), 160, plainStyle).join("\n")).toMatch(/· not sandboxed$/m);
		expect(viewerHeader(base, 160, plainStyle).join("\n")).not.toContain("sandboxed");
	});

	it("the child list's row marks a sandboxed child", () => {
		const [row] = childListLines([viewOfRecord(sandboxed(), NOW)], null, 160, plainStyle);
		expect(row).toMatch(/· running \S+ · sandboxed$/);
		const base = record();
		const [unsandboxed] = childListLines([viewOfRecord(record({ config: { ...base.config, sandboxed: false } }), NOW)], null, 160, plainStyle);
		expect(unsandboxed).toMatch(/· not sandboxed$/);
	});

	it("a result read back keeps both", () => {
		const base = record();
		const view = viewOfResult(result({ config: { ...base.config, sandboxed: true }, diagnostics: [blocked] }));
		expect(view.sandboxed).toBe(true);
		expect(view.blocked).toEqual(["read: read /home/me/.ssh/id_rsa"]);
	});
});
