/**
 * Small pure pieces of the runtime: the FIFO limiter, the pi version check, the exclude matcher
 * for child extensions, run ids, result capping and the requested-vs-used block.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLimiter } from "../../src/runtime/limiter.ts";
import { checkPiVersion } from "../../src/runtime/pi/version.ts";
import { extensionExcluded } from "../../src/runtime/pi/child-extensions.ts";
import { formatResult, notificationText, requestedVsUsed, runResult } from "../../src/runtime/result.ts";
import { newRunId } from "../../src/runtime/runs.ts";
import { record } from "./record.ts";

describe("limiter", () => {
	it("admits in FIFO order within the slot count and cancels queued jobs", async () => {
		const limiter = createLimiter(2);
		const started: string[] = [];
		const releases = new Map<string, () => void>();
		const cancels = new Map<string, () => boolean>();
		for (const key of ["a", "b", "c", "d"]) {
			cancels.set(
				key,
				limiter.enqueue(key, (release) => {
					started.push(key);
					releases.set(key, release);
				}),
			);
		}
		expect(started).toEqual(["a", "b"]);
		expect(limiter.waiting()).toEqual(["c", "d"]);
		expect(cancels.get("c")?.()).toBe(true);
		releases.get("a")?.();
		await new Promise((resolve) => queueMicrotask(() => resolve(null)));
		expect(started).toEqual(["a", "b", "d"]);
		expect(cancels.get("a")?.()).toBe(false);
		expect(limiter.active()).toBe(2);
	});

	it("admits a job queued with priority first before the jobs that waited longer (a run resuming after its wait, ADR 0173)", async () => {
		const limiter = createLimiter(1);
		const started: string[] = [];
		const releases = new Map<string, () => void>();
		const job = (key: string) => (release: () => void) => {
			started.push(key);
			releases.set(key, release);
		};
		limiter.enqueue("lead", job("lead"));
		limiter.enqueue("child-1", job("child-1"));
		limiter.enqueue("child-2", job("child-2"));
		limiter.enqueue("lead-again", job("lead-again"), "first");
		expect(limiter.waiting()).toEqual(["lead-again", "child-1", "child-2"]);
		releases.get("lead")?.();
		await new Promise((resolve) => queueMicrotask(() => resolve(null)));
		expect(started).toEqual(["lead", "lead-again"]);
	});
});

describe("pi version check", () => {
	it("accepts 1.x from 1.6 and refuses others with a clear message", () => {
		expect(checkPiVersion("1.6.0").ok).toBe(true);
		expect(checkPiVersion("1.9.3").ok).toBe(true);
		const old = checkPiVersion("1.5.9");
		expect(old.ok).toBe(false);
		if (!old.ok) expect(old.message).toContain(">=1.6.0 <2");
		expect(checkPiVersion("2.0.0").ok).toBe(false);
	});
});

describe("childExtensions.exclude matching", () => {
	it("matches file stems, package directories and npm names", () => {
		expect(extensionExcluded("/a/extensions/noisy.ts", ["noisy"])).toBe(true);
		expect(extensionExcluded("/a/node_modules/pi-perms/index.ts", ["npm:pi-perms"])).toBe(true);
		expect(extensionExcluded("/a/pkgs/my-ext/index.ts", ["my-ext"])).toBe(true);
		expect(extensionExcluded("/a/extensions/gate.ts", ["noisy"])).toBe(false);
	});

	it("matches a package by its own directory or package.json name, never by any ancestor directory", () => {
		const root = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "excl-"));
		const loose = join(root, "git", "proj", ".pi", "extensions", "gate.ts");
		const pkg = join(root, "git", "github.com", "me", "pi-gate-repo");
		const inPackage = join(pkg, "extensions", "gate.ts");
		for (const file of [loose, inPackage]) {
			mkdirSync(dirname(file), { recursive: true });
			writeFileSync(file, "export default function () {}\n");
		}
		writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@me/pi-gate" }));
		// "git" is only an ancestor directory of these extensions: excluding it must not drop them.
		expect(extensionExcluded(loose, ["git"])).toBe(false);
		expect(extensionExcluded(inPackage, ["git"])).toBe(false);
		expect(extensionExcluded(inPackage, ["pi-gate-repo"])).toBe(true);
		expect(extensionExcluded(inPackage, ["npm:@me/pi-gate"])).toBe(true);
		expect(extensionExcluded(inPackage, ["@me/pi-gate@1.2.0"])).toBe(true);
	});
});

describe("run ids", () => {
	it("are git ref components built from the type", () => {
		const id = newRunId("General Purpose!", () => false);
		expect(id).toMatch(/^general-purpose-[a-z0-9]{1,6}$/);
	});
});

describe("results", () => {
	it("cap the text with a pointer to the transcript", () => {
		const result = runResult(record(), 10);
		expect(result.truncated).toBe(true);
		expect(result.text).toContain("40 more characters");
		expect(result.text).toContain("/t/run.jsonl");
		expect(runResult(record(), 100).truncated).toBe(false);
	});

	it("name what was requested next to what was used", () => {
		const rows = requestedVsUsed(record());
		expect(rows).toContainEqual({ field: "reasoningEffort", requested: "high", used: "medium", note: "clamped for the model" });
		expect(rows).toContainEqual({ field: "model", requested: "nope/x", used: "faux/m", note: "unresolvable" });
		expect(rows.find((row) => row.field === "isolation")?.note).toContain("ignored");
	});

	it("carry the resolution's warnings (never silent), not the project's load diagnostics", () => {
		const run = record({
			diagnostics: [
				{ severity: "warning", file: "agents/other.md", line: 3, column: 1, code: "unknown-key", message: "unknown key colour in another file" },
				{
					severity: "warning",
					file: "agents/explore.md",
					line: 4,
					column: 8,
					code: "tool-unavailable",
					message: 'tools of "explore" names nosuchtool, not among the available tools; dropped',
					hint: "check the name",
				},
				{ severity: "warning", file: null, line: null, column: null, code: "thinking-clamped", message: "thinking high is clamped to medium" },
			],
		});
		const result = runResult(run, 1000);
		expect(result.warnings).toHaveLength(2);
		const text = formatResult(result);
		expect(text).toContain("agents/explore.md:4:8 warning tool-unavailable");
		expect(text).toContain("(check the name)");
		expect(text).toContain("nosuchtool");
		expect(text).toContain("thinking-clamped");
		expect(text).not.toContain("colour");
	});

	it("keep the notification preview within 500 characters", () => {
		const text = notificationText(record({ text: "y".repeat(2000) }));
		const preview = /Preview: (.*)/.exec(text)?.[1] ?? "";
		expect(preview.length).toBeLessThanOrEqual(500);
		expect(text).toContain("explore-abc123");
		expect(text).toContain("/t/run.jsonl");
	});
});
