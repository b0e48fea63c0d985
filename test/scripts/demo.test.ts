/**
 * `npm run demo` with "your configured model" (issue 19): a user agent dir whose pi has a default
 * model with credentials (here the chat-completions stub on 127.0.0.1) and cadre already installed
 * as a pi package. The demo must run (no "Tool subagent conflicts"), print each child's answer, and
 * leave that agent dir exactly as it was.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer, stubModels } from "../support/chat-server.ts";
import { nodeBinary, REPO_ROOT } from "../support/cli.ts";

let server: ChatServer;
beforeAll(async () => {
	server = await startChatServer((request) => {
		if (request.agent === "explore") return { text: "REVIEW-ANSWER: divide() has no zero guard." };
		if (request.agent === "general-purpose") return { text: "LAYOUT-ANSWER: a README and src/math.js." };
		if (request.step === 0) {
			return {
				toolCalls: [
					{ name: "subagent", arguments: { prompt: "Review src/math.js", description: "review", subagent_type: "explore", persona: "reviewer", run_in_background: true } },
					{ name: "subagent", arguments: { prompt: "Summarize the layout", description: "summarize" } },
				],
			};
		}
		if (request.step === 1) {
			const id = /Started sub-agent (\S+)/.exec(JSON.stringify(request.messages))?.[1]?.replace(/[\\"].*$/, "") ?? "";
			return { toolCalls: [{ name: "get_subagent_result", arguments: { agent_id: id, wait: true } }] };
		}
		return { text: "Both finished." };
	});
});
afterAll(async () => {
	await server.close();
});

/** Every path under `dir` with its size and mtime: what "untouched" means. */
function snapshot(dir: string): string[] {
	const out: string[] = [];
	const walk = (at: string) => {
		for (const name of readdirSync(at)) {
			const path = join(at, name);
			const stat = statSync(path);
			out.push(`${relative(dir, path)} ${stat.size} ${stat.mtimeMs}`);
			if (stat.isDirectory()) walk(path);
		}
	};
	walk(dir);
	return out.sort();
}

function runDemo(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(nodeBinary(), [join(REPO_ROOT, "scripts", "demo.ts"), "--real"], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (data: Buffer) => (stdout += data.toString()));
		child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
		const timer = setTimeout(() => child.kill("SIGKILL"), 100_000);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}

describe("npm run demo with the user's configured model", () => {
	it("runs with cadre installed in pi, prints each child's answer, and writes nothing to the user's agent dir", { timeout: 120_000 }, async () => {
		const root = mkdtempSync(join(process.env.TMPDIR as string, "demo-"));
		const home = join(root, "home");
		const agentDir = join(root, "user-agent");
		mkdirSync(home, { recursive: true });
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "models.json"), JSON.stringify(stubModels(server.baseUrl)));
		// cadre already installed in the user's pi: a package of its own (another path than the checkout's).
		const installed = join(root, "installed-cadre");
		mkdirSync(installed, { recursive: true });
		writeFileSync(join(installed, "package.json"), JSON.stringify({ name: "cadre", type: "module", pi: { extensions: ["./index.ts"] } }));
		writeFileSync(join(installed, "index.ts"), `export { default } from ${JSON.stringify(join(REPO_ROOT, "src", "hosts", "pi", "extension.ts"))};\n`);
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProvider: "stub", defaultModel: "model-a", packages: [installed] }));
		const before = snapshot(agentDir);
		const run = await runDemo({ ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir, PATH: `${join(REPO_ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}` });
		expect(run.stderr).not.toContain("conflicts");
		expect(run.code, run.stderr + run.stdout).toBe(0);
		expect(run.stdout).toContain("REVIEW-ANSWER: divide() has no zero guard.");
		expect(run.stdout).toContain("LAYOUT-ANSWER: a README and src/math.js.");
		expect(snapshot(agentDir)).toEqual(before);
	});
});
