/**
 * `npm run demo`: cadre end to end through the real `pi` command line, offline by default.
 *
 * In a temporary project with a temporary HOME and agent dir, it runs
 * `pi -e <repo> -e <scripted model> --mode json -p …`. The scripted faux model (written next to the
 * project) spawns `explore` in the background with the `reviewer` persona, spawns `general-purpose`
 * in the foreground, waits for the background run with `get_subagent_result` (`wait: true`) and
 * answers. The demo prints a short summary, then one JSON line:
 * `{"runs":[{"type","status","model","capabilityMode","persona","tools","transcript"}]}`.
 *
 * With a real model configured in pi (a default model with credentials in your real agent dir,
 * `$PI_CODING_AGENT_DIR` or `~/.pi/agent`) the demo uses it instead: same temporary project, the
 * project persona `.pi/personas/reviewer.md`, and a prompt asking for the same two spawns. Your
 * agent dir is only read: its `models.json`, its `settings.json` without `packages` and
 * `extensions` (so a cadre you installed in pi does not clash with this checkout's), and the API
 * keys of its `auth.json` (never OAuth logins, whose refresh would rotate your tokens) are copied
 * into a temporary agent dir, where pi and cadre write their sessions. `--offline` forces the
 * scripted model; `--real` forces your model. Each child's answer is printed (ADR 0102).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runResult } from "../src/runtime/result.ts";
import { loadRun, recordDirs } from "../src/runtime/run-reader.ts";
import { recordPath } from "../src/runtime/run-store.ts";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const piBin = join(repo, "node_modules", ".bin", "pi");
const realAgentDir = process.env.PI_CODING_AGENT_DIR ?? join(homedir(), ".pi", "agent");

/** A JSON file of the user's agent dir as an object, or null when absent or unreadable. */
function readJson(path: string): Record<string, unknown> | null {
	try {
		const value = JSON.parse(readFileSync(path, "utf8")) as unknown;
		return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	} catch {
		return null;
	}
}

/**
 * A temporary agent dir holding what the user's pi needs to reach its model, read from `from` and
 * never written there: models.json, settings.json without the extensions it loads, auth.json's API keys.
 */
function borrowAgentDir(from: string, to: string): void {
	mkdirSync(to, { recursive: true });
	const models = readJson(join(from, "models.json"));
	if (models) writeFileSync(join(to, "models.json"), JSON.stringify(models));
	const settings = readJson(join(from, "settings.json"));
	if (settings) {
		const { packages: _packages, extensions: _extensions, ...rest } = settings;
		writeFileSync(join(to, "settings.json"), JSON.stringify(rest));
	}
	const auth = readJson(join(from, "auth.json"));
	if (auth) {
		const keys = Object.fromEntries(Object.entries(auth).filter(([, entry]) => (entry as { type?: unknown } | null)?.type === "api_key"));
		writeFileSync(join(to, "auth.json"), JSON.stringify(keys), { mode: 0o600 });
	}
}

/** Whether pi, in `agentDir`, would start a new session on a model it can use (never reaches the network). */
async function realModelConfigured(agentDir: string): Promise<boolean> {
	const { newSessionModel } = await import("../src/runtime/pi/parent-model.ts");
	const { how } = await newSessionModel({ agentDir, cwd: agentDir, projectTrusted: false });
	return how === "settings" || how === "automatic";
}

const root = mkdtempSync(join(tmpdir(), "cadre-demo-"));
const borrowed = join(root, "agent-borrowed");
borrowAgentDir(realAgentDir, borrowed);
const real = process.argv.includes("--real") || (!process.argv.includes("--offline") && (await realModelConfigured(borrowed)));

const SCRIPTED_MODEL = `
import { fauxAssistantMessage, fauxProvider, fauxToolCall, getSystemMessageText } from "@earendil-works/pi-ai";

function text(message) {
	const content = message?.content;
	if (typeof content === "string") return content;
	return Array.isArray(content) ? content.map((part) => part.text ?? "").join("") : "";
}

export default function (pi) {
	const faux = fauxProvider({ provider: "demo", models: [{ id: "scripted", name: "cadre demo (scripted)" }] });
	const route = (context) => {
		const system = context.messages.filter((m) => m.role === "system").map((m) => getSystemMessageText(m)).join("\\n");
		const agent = /<active_agent name="([^"]+)"\\/>/.exec(system)?.[1] ?? "parent";
		const messages = context.messages.filter((m) => m.role !== "system");
		const last = messages[messages.length - 1];
		const step = messages.filter((m) => m.role === "assistant").length;
		if (agent === "explore") {
			if (step === 0) return fauxAssistantMessage([fauxToolCall("read", { path: "src/math.js" })], { stopReason: "toolUse" });
			return fauxAssistantMessage("Review: add() is fine; divide() does not guard against a zero divisor.");
		}
		if (agent === "general-purpose") {
			if (step === 0) return fauxAssistantMessage([fauxToolCall("bash", { command: "ls -R" }), fauxToolCall("read", { path: "README.md" })], { stopReason: "toolUse" });
			return fauxAssistantMessage("The project has a README and src/math.js with add() and divide().");
		}
		if (step === 0) {
			return fauxAssistantMessage([
				fauxToolCall("subagent", { prompt: "Review src/math.js for bugs.", description: "review math module", subagent_type: "explore", persona: "reviewer", run_in_background: true }),
				fauxToolCall("subagent", { prompt: "Summarize the project layout.", description: "summarize the project" }),
			], { stopReason: "toolUse" });
		}
		if (step === 1) {
			const id = /Started sub-agent (\\S+)/.exec(messages.map(text).join("\\n"))?.[1] ?? "";
			return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: id, wait: true })], { stopReason: "toolUse" });
		}
		return fauxAssistantMessage("Both sub-agents finished: their answers are printed above.");
	};
	faux.setResponses(Array.from({ length: 100 }, () => route));
	pi.registerProvider(faux.provider);
}
`;

const PERSONA = `---
description: Careful code reviewer
inputs:
  - name: files
    io_type: file
    description: the files to review
outputs:
  - name: review
    io_type: text
    description: findings, most important first
---
Review like a senior engineer: correctness first, then clarity. Name each finding with its file.
`;

const REAL_PROMPT =
	"Use the subagent tool twice: first spawn subagent_type explore with persona reviewer in the background (run_in_background: true) to review src/math.js; then spawn general-purpose in the foreground to summarize the project layout. Then call get_subagent_result with wait: true for the background run, and answer in two sentences.";

/** What the stored details leave out (ADRs 0188, 0193), from the run's record in the agent dir. */
function fromRecord(agentDir: string, run: RunInfo): RunInfo {
	if (!run.id) return run;
	for (const dir of recordDirs(agentDir)) {
		const loaded = loadRun(recordPath(dir, run.id));
		if (loaded.ok) return { ...run, ...runResult(loaded.run, 100_000) } as RunInfo;
	}
	return run;
}

interface RunInfo {
	id?: string;
	type: string;
	status: string;
	model: string | null;
	capabilityMode: string | null;
	persona: string | null;
	/** Not in the stored details (ADR 0188): read from the run's record. */
	tools?: string[];
	transcript: string | null;
	/** The child's final answer. */
	text?: string | null;
}

function main(): number {
	const project = join(root, "project");
	mkdirSync(join(project, "src"), { recursive: true });
	writeFileSync(join(project, "README.md"), "# demo\n\nA tiny project for the cadre demo.\n");
	writeFileSync(join(project, "src", "math.js"), "export const add = (a, b) => a + b;\nexport const divide = (a, b) => a / b;\n");

	const env: NodeJS.ProcessEnv = { ...process.env, PI_TELEMETRY: "0" };
	// Only this checkout's cadre (and the scripted model): no extension the user installed in pi.
	const args = ["--no-extensions", "-e", repo];
	let agentDir: string;
	if (real) {
		agentDir = borrowed;
		env.PI_CODING_AGENT_DIR = agentDir;
		args.push("--mode", "json", "-p", REAL_PROMPT);
	} else {
		const home = join(root, "home");
		agentDir = join(root, "agent");
		mkdirSync(home, { recursive: true });
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ demo: { type: "api_key", key: "offline" } }));
		const modelFile = join(root, "scripted-model.ts");
		writeFileSync(modelFile, SCRIPTED_MODEL);
		Object.assign(env, { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" });
		args.push("-e", modelFile, "--model", "demo/scripted", "--mode", "json", "-p", "Review and summarize this project with sub-agents.");
	}
	// The persona lives in the temporary project, so a real agent dir is never written to.
	mkdirSync(join(project, ".pi", "personas"), { recursive: true });
	writeFileSync(join(project, ".pi", "personas", "reviewer.md"), PERSONA);

	const child = spawnSync(piBin, args, { cwd: project, env, encoding: "utf8", timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
	if (child.status !== 0) {
		process.stderr.write(`pi exited with ${child.status}\n${child.stderr}\n`);
		return 1;
	}
	const runs = new Map<string, RunInfo>();
	let finalText = "";
	for (const line of child.stdout.split("\n")) {
		if (!line.startsWith("{")) continue;
		let event: { type?: string; toolName?: string; result?: { details?: unknown }; message?: { role?: string; content?: unknown } };
		try {
			event = JSON.parse(line);
		} catch {
			continue;
		}
		if (event.type === "tool_execution_end" && (event.toolName === "subagent" || event.toolName === "get_subagent_result")) {
			const details = event.result?.details;
			for (const result of (Array.isArray(details) ? details : [details]) as (RunInfo | undefined)[]) {
				if (result?.id) runs.set(result.id, result);
			}
		}
		if (event.type === "message_end" && event.message?.role === "assistant" && Array.isArray(event.message.content)) {
			const text = (event.message.content as { type: string; text?: string }[]).filter((p) => p.type === "text").map((p) => p.text ?? "").join("");
			if (text) finalText = text;
		}
	}
	const list = [...runs.values()].map((run) => fromRecord(agentDir, run)).map((run) => ({ ...run, tools: run.tools ?? [] }));
	process.stdout.write(`cadre demo (${real ? "your configured model" : "offline, scripted faux model"}) in ${project}\n`);
	for (const run of list) {
		process.stdout.write(
			`  ${run.id}: ${run.type} ${run.status}, model ${run.model}, capability ${run.capabilityMode ?? "unset"}, persona ${run.persona ?? "none"}, tools ${run.tools.join(", ")}\n    transcript ${run.transcript}\n`,
		);
		const answer = (run.text ?? "").trim();
		process.stdout.write(`    answer: ${answer === "" ? "(none)" : answer.split("\n").join("\n            ")}\n`);
	}
	process.stdout.write(`  parent: ${finalText}\n`);
	const json = list.map((run) => ({
		type: run.type,
		status: run.status,
		model: run.model,
		capabilityMode: run.capabilityMode,
		persona: run.persona,
		tools: run.tools,
		transcript: run.transcript,
	}));
	process.stdout.write(`${JSON.stringify({ runs: json })}\n`);
	return list.length === 2 && list.every((run) => run.status === "completed") ? 0 : 1;
}

process.exitCode = main();
