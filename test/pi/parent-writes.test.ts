/**
 * The paths the parent's own tool calls write, as the escape check of worktree runs sees them:
 * resolved the way pi's tools resolve them, so a parent edit of `@src/a.ts` or `~/x` is not
 * reported as a child's escape.
 */
import { describe, expect, it } from "vitest";
import { resolveToolPath, touchedPath } from "../../src/hosts/pi/parent-writes.ts";

describe("parent writes", () => {
	it("resolves tool paths like pi: @ prefix dropped, ~ expanded, relative to the cwd", () => {
		expect(resolveToolPath("@src/a.ts", "/repo", "/home/u")).toBe("/repo/src/a.ts");
		expect(resolveToolPath("~/notes.md", "/repo", "/home/u")).toBe("/home/u/notes.md");
		expect(resolveToolPath("~", "/repo", "/home/u")).toBe("/home/u");
		expect(resolveToolPath("../b.ts", "/repo/pkg", "/home/u")).toBe("/repo/b.ts");
		expect(resolveToolPath("/abs/c.ts", "/repo", "/home/u")).toBe("/abs/c.ts");
	});

	it("attributes edit and write to their path, shell tools to the whole cwd, others to nothing", () => {
		expect(touchedPath("edit", { path: "@a.ts" }, "/repo", "/h")).toBe("/repo/a.ts");
		expect(touchedPath("write", { path: "b.ts", content: "x" }, "/repo", "/h")).toBe("/repo/b.ts");
		expect(touchedPath("bash", { command: "make" }, "/repo", "/h")).toBe("/repo");
		expect(touchedPath("powershell", { command: "ls" }, "/repo", "/h")).toBe("/repo");
		expect(touchedPath("read", { path: "a.ts" }, "/repo", "/h")).toBeNull();
		expect(touchedPath("edit", { path: 3 }, "/repo", "/h")).toBeNull();
	});
});
