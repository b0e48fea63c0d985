/**
 * The pi extension's telemetry through the real `pi -e <repo> -p` (issue 26, ADR 0145): without an
 * endpoint no OpenTelemetry module is loaded in the pi process (a module hook lists every one
 * resolved); with one, the session's turn and its child are exported before pi exits.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.ts";
import { moduleLog } from "../support/module-log.ts";
import { piCommand, piWorld } from "../support/pi-cli.ts";

let receiver: OtlpReceiver;
beforeAll(async () => {
	receiver = await startOtlpReceiver();
});
afterAll(async () => {
	await receiver.close();
});

/** `pi -p` with the scripted model spawning one child, every `@opentelemetry` module it resolves logged. */
async function piWithModuleLog(env: Record<string, string>): Promise<{ status: number | null; stderr: string; modules: string }> {
	const world = piWorld("otel-pi-");
	writeFileSync(join(world.project, "notes.txt"), "hello from the telemetry test");
	const modules = moduleLog(world.root, "@opentelemetry");
	const command = piCommand(world, { fixture: "scripted-model.ts", prompt: "read the notes with a sub-agent", env: { ...env, NODE_OPTIONS: modules.nodeOptions } });
	for (const key of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) if (!(key in env)) delete command.env[key];
	const child = spawn(command.bin, command.args, { cwd: command.cwd, env: command.env, stdio: ["ignore", "pipe", "pipe"] });
	let stderr = "";
	child.stderr?.on("data", (data: Buffer) => (stderr += data.toString("utf8")));
	child.stdout?.resume();
	const status = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
	return { status, stderr, modules: modules.read() };
}

describe("pi -e . -p telemetry", () => {
	it("loads no OpenTelemetry module without an endpoint", async () => {
		const run = await piWithModuleLog({});
		expect(run.status, run.stderr).toBe(0);
		expect(run.modules).toBe("");
	});

	it("exports the session turn and its child before pi exits when an endpoint is set", async () => {
		const run = await piWithModuleLog({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
		expect(run.status, run.stderr).toBe(0);
		expect(run.modules).toContain("@opentelemetry/exporter-trace-otlp-http");
		const turn = receiver.spans.find((span) => span.name === "session_turn");
		const agent = receiver.spans.find((span) => span.name.startsWith("invoke_agent "));
		expect(agent?.parentSpanId).toBe(turn?.spanId);
		expect(agent?.traceId).toBe(turn?.traceId);
	});
});
