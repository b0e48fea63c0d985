/**
 * `cadre run` and traces (issue 26, ADR 0145): the real `bin/cadre.js` against the chat stub and an
 * OTLP/HTTP receiver, both on 127.0.0.1. Under `TRACEPARENT` its spans continue that trace; a
 * `--batch` is one `invoke_workflow cadre.batch` span; without an endpoint no module of
 * OpenTelemetry is loaded at all (a module hook in the process lists every one resolved).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "../support/chat-server.ts";
import { cadre, runRecords as records, type RunWorld, runWorld } from "../support/cadre-run.ts";
import { moduleLog } from "../support/module-log.ts";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../support/otlp-receiver.ts";

let server: ChatServer;
let receiver: OtlpReceiver;
beforeAll(async () => {
	server = await startChatServer((request) => (request.step === 0 ? { toolCalls: [{ name: "ls", arguments: { path: "." } }] } : { text: `answered ${request.lastText.slice(0, 20)}` }));
	receiver = await startOtlpReceiver();
});
afterAll(async () => {
	await server.close();
	await receiver.close();
});

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

/** Every `@opentelemetry` module the world's `cadre` resolves, logged. */
function otelModules(world: RunWorld): () => string {
	const log = moduleLog(world.root, "@opentelemetry");
	world.env.NODE_OPTIONS = log.nodeOptions;
	return log.read;
}

const ofTrace = (traceId: string) => receiver.spans.filter((span) => span.traceId === traceId);

describe("cadre run telemetry", () => {
	it("continues the trace TRACEPARENT names: the run's spans are under that span, its result and record carry the trace id", async () => {
		const world = runWorld("otel-run-", server.baseUrl);
		world.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
		world.env.TRACEPARENT = TRACEPARENT;
		const modules = otelModules(world);
		const run = await cadre(world, ["run", "explore", "where is it?", "--json"]);
		expect(run.code, run.stderr).toBe(0);
		const result = JSON.parse(run.stdout) as { traceId: string };
		expect(result.traceId).toBe(TRACE_ID);
		expect(records(world.agentDir).map((record) => record.traceId)).toEqual([TRACE_ID]);
		// Exported before the process exited.
		const spans = ofTrace(TRACE_ID);
		const agent = spans.find((span) => span.name === "invoke_agent explore") as ReceivedSpan;
		expect(agent.parentSpanId).toBe(SPAN_ID);
		expect(agent.attributes).toMatchObject({ "gen_ai.provider.name": "stub", "gen_ai.request.model": "model-a", "cadre.capability": "read-only" });
		const below = spans.filter((span) => span.parentSpanId === agent.spanId).map((span) => span.name);
		expect(below.sort()).toEqual(["chat model-a", "chat model-a", "execute_tool ls"]);
		const chat = spans.find((span) => span.name === "chat model-a" && span.attributes["gen_ai.response.finish_reasons"]?.toString() === "stop");
		expect(chat?.attributes["gen_ai.usage.input_tokens"]).toEqual(expect.any(Number));
		expect(modules()).toContain("@opentelemetry/sdk-trace");
	});

	it("puts a --batch under one invoke_workflow cadre.batch span", async () => {
		const world = runWorld("otel-batch-", server.baseUrl);
		const traceId = "5bf92f3577b34da6a3ce929d0e0e4737";
		world.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${receiver.endpoint}/v1/traces`;
		world.env.TRACEPARENT = `00-${traceId}-${SPAN_ID}-01`;
		const file = join(world.root, "batch.jsonl");
		writeFileSync(file, [JSON.stringify({ type: "explore", prompt: "one" }), JSON.stringify({ type: "explore", prompt: "two" })].join("\n"));
		const run = await cadre(world, ["run", "--batch", file, "--json"]);
		expect(run.code, run.stderr).toBe(0);
		const spans = ofTrace(traceId);
		const workflow = spans.filter((span) => span.name === "invoke_workflow cadre.batch");
		expect(workflow).toHaveLength(1);
		expect(workflow[0]?.parentSpanId).toBe(SPAN_ID);
		expect(workflow[0]?.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "cadre.batch" });
		const agents = spans.filter((span) => span.name === "invoke_agent explore");
		expect(agents.map((span) => span.parentSpanId)).toEqual([workflow[0]?.spanId, workflow[0]?.spanId]);
	});

	it("loads no OpenTelemetry module without an endpoint, and the result's trace id is null", async () => {
		const world = runWorld("otel-off-", server.baseUrl);
		delete world.env.OTEL_EXPORTER_OTLP_ENDPOINT;
		delete world.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
		world.env.TRACEPARENT = TRACEPARENT;
		const modules = otelModules(world);
		const run = await cadre(world, ["run", "explore", "where is it?", "--json"]);
		expect(run.code, run.stderr).toBe(0);
		expect((JSON.parse(run.stdout) as { traceId: unknown }).traceId).toBeNull();
		expect(modules()).toBe("");
	});

	it("takes telemetry.otlp from a trusted project's settings only", async () => {
		// A project extension makes pi ask for trust: without --trust-project the project is untrusted.
		const world = runWorld("otel-untrusted-", server.baseUrl, {
			files: { "project/.pi/subagents.json": JSON.stringify({ telemetry: { otlp: receiver.endpoint } }), "project/.pi/extensions/x.ts": "export default function () {}\n" },
		});
		const modules = otelModules(world);
		const untrusted = await cadre(world, ["run", "explore", "where is it?", "--json"]);
		expect(untrusted.code, untrusted.stderr).toBe(0);
		expect((JSON.parse(untrusted.stdout) as { traceId: unknown }).traceId).toBeNull();
		expect(modules()).toBe("");
		const trusted = await cadre(world, ["run", "explore", "where is it?", "--json", "--trust-project"]);
		expect(trusted.code, trusted.stderr).toBe(0);
		expect((JSON.parse(trusted.stdout) as { traceId: unknown }).traceId).toMatch(/^[0-9a-f]{32}$/);
	});
});
