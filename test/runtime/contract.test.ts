/**
 * The contract check on its own (issue 13, ADR 0099): how a final answer names a text output, and
 * each output kind over real files — a file or directory at its path inside the child's cwd by
 * real path, json that parses (file or section), a url section, the structured result — and the
 * repair message naming what is missing, where and why.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { IoSpec } from "../../src/files/types.ts";
import { answerSection, checkContract, repairMessage } from "../../src/runtime/contract.ts";
import { resultTool } from "../../src/runtime/structured-result.ts";

const out = (name: string, io_type: IoSpec["io_type"], extra: Partial<IoSpec> = {}): IoSpec => ({ name, io_type, required: true, description: null, path: null, ...extra });

describe("answerSection: how a final answer names a text output", () => {
	it("an <output name> block, the last one of that name winning, names matched case-insensitively", () => {
		const answer = 'Intro.\n<output name="report">first</output>\n<output name="other">x</output>\n<output name="Report">\n  second\n</output>';
		expect(answerSection(answer, "report")).toBe("second");
		expect(answerSection("<output name='notes'>single quotes</output>", "notes")).toBe("single quotes");
	});

	it("else a Markdown heading of any level, up to the next heading of the same or a higher level", () => {
		const answer = "# Result\n\n## Report\nline 1\n### detail\nline 2\n## Other\nnot it";
		expect(answerSection(answer, "report")).toBe("line 1\n### detail\nline 2");
		expect(answerSection("**Summary**\n## summary:\nall good", "summary")).toBe("all good");
	});

	it("headings inside code fences neither open nor close a section", () => {
		const answer = "## report\n```bash\n# a comment, not a heading\nls\n```\nafter\n## next\nx";
		expect(answerSection(answer, "report")).toBe("```bash\n# a comment, not a heading\nls\n```\nafter");
		expect(answerSection("```\n## report\ninside\n```", "report")).toBeNull();
	});

	it("null when the answer names no such section", () => {
		expect(answerSection("The report: all fine.", "report")).toBeNull();
	});
});

function workdir(): { cwd: string; outside: string } {
	const root = realpathSync(mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "contract-")));
	const cwd = join(root, "work");
	mkdirSync(join(cwd, "out"), { recursive: true });
	writeFileSync(join(cwd, "out/report.md"), "fine\n");
	writeFileSync(join(cwd, "data.json"), '{"a": 1}');
	writeFileSync(join(cwd, "broken.json"), "{a: 1}");
	const outside = join(root, "elsewhere.md");
	writeFileSync(outside, "x");
	symlinkSync(outside, join(cwd, "out/link.md"));
	return { cwd, outside };
}

const check = (outputs: IoSpec[], answer: string | null = null, cwd = "/nowhere") => checkContract({ outputs, outputSchema: null }, { cwd, answer, structured: null });

describe("checkContract", () => {
	const { cwd, outside } = workdir();

	it("file: present at its path passes with the absolute path; missing fails naming it", () => {
		expect(check([out("report", "file", { path: "out/report.md" })], null, cwd)).toEqual({ ok: true, outputs: [{ name: "report", ok: true, path: join(cwd, "out/report.md") }], repair: null });
		expect(check([out("patch", "file", { path: "out/patch.diff" })], null, cwd).outputs).toEqual([
			{ name: "patch", ok: false, path: join(cwd, "out/patch.diff"), reason: "out/patch.diff does not exist" },
		]);
	});

	it("file: a symlink out of the child's cwd, or a directory, does not count", () => {
		const link = check([out("report", "file", { path: "out/link.md" })], null, cwd);
		expect(link.ok).toBe(false);
		expect(link.outputs[0]?.reason).toBe(`out/link.md resolves to ${outside}, outside the child's working directory`);
		expect(check([out("report", "file", { path: "out" })], null, cwd).outputs[0]?.reason).toBe("out is not a file");
	});

	it("directory: an existing directory passes; a file at its path does not", () => {
		expect(check([out("dir", "directory", { path: "out" })], null, cwd).ok).toBe(true);
		expect(check([out("dir", "directory", { path: "data.json" })], null, cwd).outputs[0]?.reason).toBe("data.json is not a directory");
	});

	it("json: a file that parses passes, one that does not fails; a section is parsed without its code fence", () => {
		expect(check([out("data", "json", { path: "data.json" })], null, cwd).ok).toBe(true);
		expect(check([out("data", "json", { path: "broken.json" })], null, cwd).outputs[0]?.reason).toMatch(/^broken\.json is not JSON/);
		expect(check([out("data", "json")], '<output name="data">\n```json\n{"x": [1]}\n```\n</output>').ok).toBe(true);
		expect(check([out("data", "json")], '<output name="data">{x}</output>').outputs[0]?.reason).toMatch(/^its section is not JSON/);
	});

	it("text and url: a non-empty section; an empty one fails even when optional", () => {
		expect(check([out("report", "text")], "## report\nall good").ok).toBe(true);
		expect(check([out("report", "text")], "no sections").outputs[0]?.reason).toBe('the final answer has no <output name="report"> section');
		expect(check([out("report", "text", { required: false })], '<output name="report"> </output>').ok).toBe(false);
		expect(check([out("page", "url")], '<output name="page">https://example.com/x</output>').ok).toBe(true);
		expect(check([out("page", "url")], '<output name="page">see the docs</output>').outputs[0]?.reason).toBe("its section is not an absolute URL");
	});

	it("an optional output that is missing is listed, and the contract still holds", () => {
		const contract = check([out("report", "text", { required: false })], "nothing");
		expect(contract.ok).toBe(true);
		expect(contract.outputs[0]?.ok).toBe(false);
	});

	it("structured: ok once submit_result accepted a value; otherwise why not", () => {
		const config = { outputs: [], outputSchema: { type: "object" } };
		expect(checkContract(config, { cwd, answer: null, structured: { calls: 1, value: { a: 1 }, errors: null } }).ok).toBe(true);
		expect(checkContract(config, { cwd, answer: null, structured: { calls: 0, errors: null } }).outputs[0]?.reason).toBe("submit_result was never called");
		expect(checkContract(config, { cwd, answer: null, structured: { calls: 2, errors: ["/a: must be integer"] } }).outputs[0]?.reason).toBe(
			"submit_result was called 2 times, never with a valid result (last: /a: must be integer)",
		);
	});

	it("the repair message names each failed output, where it must be, its description and what to do", () => {
		const config = { outputs: [out("patch", "file", { path: "out/patch.diff", description: "the diff." }), out("report", "text")], outputSchema: { type: "object" } };
		const contract = checkContract(config, { cwd, answer: '<output name="report">ok</output>', structured: null });
		expect(repairMessage(config, contract)).toBe(
			[
				"[cadre] You are not finished: these promised outputs are missing or not valid.",
				"- patch (file, required): the diff — out/patch.diff does not exist. Write it to out/patch.diff, relative to your working directory.",
				"- structured (result, required) — submit_result was never called. Call submit_result with it: its parameters are the result's JSON Schema. When it answers with validation errors, fix them and call it again; a valid call ends your run.",
				"Produce them now, then give your final answer again.",
			].join("\n"),
		);
	});
});

describe("resultTool", () => {
	it("an object schema is the tool's parameters; any other is wrapped as { result }", () => {
		const object = resultTool({ type: "object", properties: { a: { type: "integer" } } });
		expect(object.parameters).toEqual({ type: "object", properties: { a: { type: "integer" } } });
		expect(object.check(object.unwrap({ a: "1" }))).toEqual(["/a: must be integer"]);
		const list = resultTool({ type: "array", items: { type: "string" } });
		expect(list.parameters).toMatchObject({ type: "object", required: ["result"], properties: { result: { type: "array" } } });
		expect(list.unwrap({ result: ["x"] })).toEqual(["x"]);
		expect(list.check(list.unwrap({ result: [1] }))).toEqual(["/0: must be string"]);
	});

	it("formats are checked, and a draft-07 schema is read as draft-07", () => {
		const email = resultTool({ type: "object", properties: { to: { type: "string", format: "email" } } });
		expect(email.check({ to: "not an address" })).toEqual(['/to: must match format "email"']);
		const draft07 = resultTool({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { t: { type: "array", items: [{ type: "string" }] } } });
		expect(draft07.check({ t: [1] })).toEqual(["/t/0: must be string"]);
	});
});

describe("the completion notification", () => {
	it("says whether the contract was kept", async () => {
		const { notificationText } = await import("../../src/runtime/result.ts");
		const { record } = await import("./record.ts");
		const contract = { ok: false, outputs: [{ name: "patch", ok: false, path: "/w/out.diff", reason: "out.diff does not exist" }], repair: { steered: true, worked: false, skipped: null } };
		expect(notificationText(record({ contract }))).toContain("Contract: NOT kept — patch missing: out.diff does not exist (/w/out.diff). Repair turn: sent once; the contract is still not kept.");
		expect(notificationText(record())).not.toContain("Contract:");
	});
});
