/**
 * A spawn's inputs checked against the persona's `inputs` (issue 13), one test per rule and per
 * io_type, over real files read through the real spawn reader: file and directory inputs exist
 * and stay inside the child's cwd or the project by real path; json parses; url is a URL; text is
 * text; a missing required input refuses; an undeclared one warns with a did-you-mean.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { IoSpec } from "../../src/files/types.ts";
import { resolve } from "../../src/resolve/resolve.ts";
import { spawnReader } from "../../src/resolve/spawn-reader.ts";
import type { InputCheck, SpawnRequest } from "../../src/resolve/types.ts";
import { entry, input, loaded, parent } from "./support/build.ts";

/** A project with src/a.ts, src/, docs/, a file outside it and a symlink pointing out. */
function project(): { dir: string; outside: string } {
	const root = realpathSync(mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "inputs-")));
	const dir = join(root, "project");
	mkdirSync(join(dir, "src"), { recursive: true });
	mkdirSync(join(dir, "docs"));
	writeFileSync(join(dir, "src/a.ts"), "export {};\n");
	const outside = join(root, "secret.txt");
	writeFileSync(outside, "secret\n");
	symlinkSync(outside, join(dir, "link-out.txt"));
	symlinkSync(join(dir, "src/a.ts"), join(dir, "link-in.ts"));
	return { dir, outside };
}

const spec = (name: string, io_type: IoSpec["io_type"], required = false, description: string | null = null): IoSpec => ({ name, io_type, required, description, path: null });

function spawn(dir: string, inputs: IoSpec[], request: SpawnRequest) {
	const persona = entry("persona", { name: "reviewer", body: "Review.", keys: { inputs } });
	return resolve(
		input({
			request: { persona: "reviewer", ...request },
			loaded: loaded({ personas: [persona], projectDir: dir }),
			parent: parent({ cwd: dir, repoRoot: dir }),
			reader: spawnReader,
		}),
	);
}

function only(dir: string, io: IoSpec, value: unknown) {
	const result = spawn(dir, [io], { inputs: { [io.name]: value } });
	return { result, check: (result.config?.inputs as InputCheck[])[0] as InputCheck };
}

describe("io_type file", () => {
	const { dir, outside } = project();
	it("an existing file inside the project passes, shown relative to the child's cwd", () => {
		const { result, check } = only(dir, spec("target", "file"), "src/a.ts");
		expect(result.refused).toBeNull();
		expect(check).toMatchObject({ status: "ok", text: "src/a.ts" });
	});
	it("an absolute path inside the project and a symlink that stays inside pass", () => {
		expect(only(dir, spec("target", "file"), join(dir, "src/a.ts")).check).toMatchObject({ status: "ok", text: "src/a.ts" });
		expect(only(dir, spec("target", "file"), "link-in.ts").check.status).toBe("ok");
	});
	it("a missing file refuses the spawn (input-invalid) with the resolved path", () => {
		const { result } = only(dir, spec("target", "file"), "src/nope.ts");
		expect(result.refused?.code).toBe("input-invalid");
		expect(result.refused?.message).toContain(`"src/nope.ts" does not exist (resolved to ${join(dir, "src/nope.ts")})`);
	});
	it("a file outside the cwd and the project, directly or through a symlink, is refused", () => {
		expect(only(dir, spec("target", "file"), outside).result.refused?.message).toContain("outside the child's working directory and the project");
		const viaLink = only(dir, spec("target", "file"), "link-out.txt").result;
		expect(viaLink.refused?.code).toBe("input-invalid");
		expect(viaLink.refused?.message).toContain(`resolves to ${outside}`);
	});
	it("a directory is not a file, and a value that is no path is refused", () => {
		expect(only(dir, spec("target", "file"), "src").result.refused?.message).toContain("is a directory, not a file");
		expect(only(dir, spec("target", "file"), 42).result.refused?.message).toContain("expects a path (text), got 42");
	});
	it("relative to a request cwd: the path is checked and shown from there", () => {
		const result = spawn(dir, [spec("target", "file")], { cwd: "src", inputs: { target: "a.ts" } });
		expect(result.refused).toBeNull();
		expect((result.config?.inputs as InputCheck[])[0]?.text).toBe("a.ts");
		const up = spawn(dir, [spec("target", "file")], { cwd: "src", inputs: { target: "../docs" } });
		expect(up.refused?.message).toContain("is a directory, not a file");
	});
});

describe("io_type directory", () => {
	const { dir } = project();
	it("an existing directory passes; the project root is `.`", () => {
		expect(only(dir, spec("where", "directory"), "docs").check).toMatchObject({ status: "ok", text: "docs" });
		expect(only(dir, spec("where", "directory"), ".").check).toMatchObject({ status: "ok", text: "." });
	});
	it("a file or a missing directory is refused", () => {
		expect(only(dir, spec("where", "directory"), "src/a.ts").result.refused?.message).toContain("is a file, not a directory");
		expect(only(dir, spec("where", "directory"), "gone").result.refused?.code).toBe("input-invalid");
		expect(only(dir, spec("where", "directory"), "..").result.refused?.message).toContain("outside the child's working directory and the project");
	});
});

describe("io_type json, url, text", () => {
	const { dir } = project();
	it("json: text that parses, or any JSON value, passes as JSON text; text that does not is refused", () => {
		expect(only(dir, spec("options", "json"), '{"depth": 2}').check).toMatchObject({ status: "ok", text: '{"depth": 2}' });
		expect(only(dir, spec("options", "json"), { depth: 2 }).check).toMatchObject({ status: "ok", text: '{"depth":2}' });
		expect(only(dir, spec("options", "json"), [1, 2]).check.text).toBe("[1,2]");
		const bad = only(dir, spec("options", "json"), "{depth: 2}").result;
		expect(bad.refused?.code).toBe("input-invalid");
		expect(bad.refused?.message).toContain("is not JSON");
	});
	it("url: an absolute URL passes; a relative one, a Windows path or a number is refused", () => {
		expect(only(dir, spec("page", "url"), "https://example.com/a?b=1").check).toMatchObject({ status: "ok", text: "https://example.com/a?b=1" });
		for (const bad of ["/docs/a", "c:/docs/a", "example com", 7]) {
			expect(only(dir, spec("page", "url"), bad).result.refused?.message, String(bad)).toContain("is not an absolute URL");
		}
	});
	it("text: text, numbers and booleans pass as text; an object is refused", () => {
		expect(only(dir, spec("focus", "text"), "the parser").check).toMatchObject({ status: "ok", text: "the parser" });
		expect(only(dir, spec("focus", "text"), 3).check.text).toBe("3");
		expect(only(dir, spec("focus", "text"), { a: 1 }).result.refused?.message).toContain('expects text, got {"a":1}');
	});
});

describe("required, optional and undeclared inputs", () => {
	const { dir } = project();
	const inputs = [spec("target", "file", true, "the file to review"), spec("focus", "text")];
	it("a missing required input refuses the spawn, naming the input and its description", () => {
		const result = spawn(dir, inputs, { inputs: { focus: "tests" } });
		expect(result.refused?.code).toBe("input-missing");
		expect(result.refused?.message).toBe('input "target" (file, required) of persona "reviewer" (.pi/personas/reviewer.md:2) is missing: the file to review');
		expect(result.diagnostics.find((d) => d.code === "input-missing")?.hint).toBe('pass it in the request\'s inputs: {"target": …}');
	});
	it("a missing or invalid input is positioned at the persona's inputs key (issue 19)", () => {
		const missing = spawn(dir, inputs, {}).diagnostics.find((d) => d.code === "input-missing");
		expect(missing).toMatchObject({ file: ".pi/personas/reviewer.md", line: 2 });
		const invalid = spawn(dir, inputs, { inputs: { target: "no/such/file.ts" } }).diagnostics.find((d) => d.code === "input-invalid");
		expect(invalid).toMatchObject({ file: ".pi/personas/reviewer.md", line: 2 });
	});
	it("no inputs at all, or a blank value, is missing too", () => {
		expect(spawn(dir, inputs, {}).refused?.code).toBe("input-missing");
		expect(spawn(dir, inputs, { inputs: { target: "  " } }).refused?.code).toBe("input-missing");
	});
	it("an optional input not given is listed as not-given and not passed on", () => {
		const result = spawn(dir, inputs, { inputs: { target: "src/a.ts" } });
		expect(result.refused).toBeNull();
		expect(result.config?.inputs.map((check) => [check.name, check.status])).toEqual([["target", "ok"], ["focus", "not-given"]]);
	});
	it("an undeclared input is a warning with a did-you-mean, and is passed on as given", () => {
		const result = spawn(dir, inputs, { inputs: { target: "src/a.ts", fokus: "tests" } });
		expect(result.refused).toBeNull();
		const warning = result.diagnostics.find((d) => d.code === "input-unknown");
		expect(warning?.severity).toBe("warning");
		expect(warning?.message).toContain('request input "fokus" is not an input of persona "reviewer"');
		expect(warning?.message).toContain("it declares target, focus — did you mean focus?");
		expect(result.config?.inputs.at(-1)).toMatchObject({ name: "fokus", status: "undeclared", ioType: null, text: "tests" });
	});
	it("names match case-insensitively, in the persona's order", () => {
		const result = spawn(dir, inputs, { inputs: { FOCUS: "x", Target: "src/a.ts" } });
		expect(result.refused).toBeNull();
		expect(result.config?.inputs.map((check) => check.name)).toEqual(["target", "focus"]);
	});
	it("inputs without a persona are undeclared; inputs that are not an object are a bad request", () => {
		const none = resolve(input({ request: { inputs: { x: 1 } }, reader: spawnReader, parent: parent({ cwd: dir }), loaded: loaded({ projectDir: dir }) }));
		expect(none.diagnostics.find((d) => d.code === "input-unknown")?.message).toContain("(no persona applies)");
		expect(resolve(input({ request: { inputs: ["x"] } })).refused?.code).toBe("bad-request");
	});
	it("a persona that cannot be loaded is refused as such; its inputs are not checked", () => {
		const result = resolve(input({ request: { persona: "ghost", inputs: {} } }));
		expect(result.refused?.code).toBe("persona-error");
		expect(result.config?.inputs).toEqual([]);
	});
});
