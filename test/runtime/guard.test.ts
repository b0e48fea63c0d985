/**
 * The call-time guard on its own: a child session whose pi tool list holds a tool the guard
 * refuses (the case pi's allowlist does not cover, e.g. a tool activated behind pi's back) blocks
 * the call with cadre's reason, and the tool never runs. A call it lets through waits for what
 * the run set with `beforeTools` (the receipt's look at the tree) before it runs.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { createChildSession } from "../../src/runtime/pi/child-session.ts";
import { describeTurn } from "./harness.ts";

/** A child session in a fresh cwd whose faux model writes `x.txt` in its first turn, then answers "ok". */
async function writingChild(tools: string[], guard: (name: string) => string | null, seen: (text: string) => void = () => {}) {
	const agentDir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "guard-"));
	const cwd = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "guard-cwd-"));
	const runtime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json"), allowModelNetwork: false });
	const faux = fauxProvider({ provider: "faux", models: [{ id: "m" }] });
	runtime.registerNativeProvider(faux.provider);
	faux.setResponses(
		Array.from({ length: 10 }, () => (context: never) => {
			const turn = describeTurn(context);
			if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("write", { path: "x.txt", content: "written" })], { stopReason: "toolUse" });
			seen(turn.lastText);
			return fauxAssistantMessage("ok");
		}) as never,
	);
	const child = await createChildSession({
		modelRuntime: runtime,
		model: "faux/m",
		thinkingLevel: "off",
		cwd,
		agentDir,
		projectTrusted: false,
		systemPrompt: '<active_agent name="t"/>',
		skills: [],
		tools,
		extensionPaths: [],
		guard,
		sessionDir: join(agentDir, "sessions"),
	});
	return { child, cwd };
}

describe("call-time guard", () => {
	it("blocks a listed tool the guard refuses", async () => {
		let seen = "";
		const refused: string[] = [];
		const guard = (name: string) => {
			if (name === "read") return null;
			refused.push(name);
			return `cadre refuses ${name}`;
		};
		const { child, cwd } = await writingChild(["read", "write"], guard, (text) => (seen = text));
		await child.run("go");
		child.dispose();
		expect(refused).toEqual(["write"]);
		expect(seen).toContain("cadre refuses write");
		expect(existsSync(join(cwd, "x.txt"))).toBe(false);
	});

	it("holds an allowed call until what beforeTools set has settled", async () => {
		const { child, cwd } = await writingChild(["write"], () => null);
		const asked: string[] = [];
		let release = () => {};
		const held = new Promise<void>((resolve) => (release = resolve));
		child.beforeTools?.((name) => (asked.push(name), held));
		const running = child.run("go");
		for (let i = 0; i < 100 && asked.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
		expect(asked).toEqual(["write"]);
		// held: the write has not run
		await new Promise((resolve) => setTimeout(resolve, 30));
		expect(existsSync(join(cwd, "x.txt"))).toBe(false);
		release();
		await running;
		child.dispose();
		expect(existsSync(join(cwd, "x.txt"))).toBe(true);
	});
});
