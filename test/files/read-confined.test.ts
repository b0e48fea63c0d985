/**
 * The confined reader used at spawn time: trimmed text inside the root; `missing-file`; and
 * `path-escape` for `..`, absolute paths and symlinks that leave the root.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfined } from "../../src/files/read-confined.ts";
import type { FileRef } from "../../src/files/types.ts";
import { layout, where } from "./fixture.ts";

function setup() {
	const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-conf-"));
	const project = join(root, "project");
	mkdirSync(join(project, ".pi/roles"), { recursive: true });
	mkdirSync(join(project, "texts"), { recursive: true });
	writeFileSync(join(project, "texts/a.md"), "\n  Inside text.  \n\n");
	writeFileSync(join(root, "secret.txt"), "SECRET");
	const ref = (written: string): FileRef => ({ written, baseDir: join(project, ".pi/roles"), root: project, declaredIn: ".pi/roles/r.md" });
	return { root, project, ref };
}

describe("readConfined", () => {
	it("reads a file inside the root, trimmed, through a `..` that stays inside", () => {
		const { ref } = setup();
		expect(readConfined(ref("../../texts/a.md"))).toEqual({ ok: true, text: "Inside text." });
	});

	it("reports a missing file with the path as written", () => {
		const { ref } = setup();
		const r = readConfined(ref("nope.md"));
		expect(r).toMatchObject({ ok: false, code: "missing-file" });
		expect(!r.ok && r.message).toContain('"nope.md"');
	});

	it("refuses `..` and absolute paths that leave the root", () => {
		const { ref, root } = setup();
		expect(readConfined(ref("../../../secret.txt"))).toMatchObject({ ok: false, code: "path-escape" });
		expect(readConfined(ref(join(root, "secret.txt")))).toMatchObject({ ok: false, code: "path-escape" });
		expect(readConfined(ref("../../../missing-outside.txt"))).toMatchObject({ ok: false, code: "path-escape" });
	});

	it("refuses a symlink inside the root that points out", () => {
		const { ref, root, project } = setup();
		symlinkSync(join(root, "secret.txt"), join(project, "texts/link.md"));
		symlinkSync(root, join(project, "texts/outdir"));
		const r = readConfined(ref("../../texts/link.md"));
		expect(r).toMatchObject({ ok: false, code: "path-escape" });
		expect(!r.ok && r.message).toContain('"../../texts/link.md"');
		expect(readConfined(ref("../../texts/outdir/secret.txt"))).toMatchObject({ ok: false, code: "path-escape" });
	});

	it("accepts a symlink that stays inside the root", () => {
		const { ref, project } = setup();
		symlinkSync(join(project, "texts/a.md"), join(project, "texts/alias.md"));
		expect(readConfined(ref("../../texts/alias.md"))).toEqual({ ok: true, text: "Inside text." });
	});

	it("reports a directory as not-a-file (ADR 0060)", () => {
		const { ref } = setup();
		expect(readConfined(ref("../../texts"))).toMatchObject({ ok: false, code: "not-a-file" });
	});
});

describe("confinement at load time", () => {
	it("reports a symlink escape on a persona's instructions_file and keeps the key", () => {
		const l = layout({ "project/.pi/personas/p.md": "---\ninstructions_file: leak.md\n---\nBe p.\n", "secret.txt": "S" });
		symlinkSync(join(l.root, "secret.txt"), join(l.project, ".pi/personas/leak.md"));
		const r = l.load();
		// leak.md is a persona file too, so it is refused as one as well (ADR 0060).
		expect(where(r)).toEqual([".pi/personas/leak.md:1:1 path-escape", ".pi/personas/p.md:2:20 path-escape"]);
		expect(r.personas.get("p")?.keys.instructions_file?.value.written).toBe("leak.md");
	});

	it("confines user files to the agent dir", () => {
		const l = layout({
			"agent/agents/scout.md": "Scout.\n",
			"agent/roles/scout.md": "---\nprompt_file: ../../project/x.md\n---\n",
			"project/x.md": "x",
		});
		const r = l.load();
		expect(r.diagnostics.map((d) => d.code)).toEqual(["path-escape"]);
		expect(r.diagnostics[0]?.file).toBe(join(l.agent, "roles/scout.md"));
	});
});
