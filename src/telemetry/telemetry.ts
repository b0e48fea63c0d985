/**
 * cadre's traces as a host sees them (ADR 0145, docs/telemetry.md): free when off — this module
 * imports nothing of OpenTelemetry; `enable` with an endpoint loads src/telemetry/otel-tracing.ts
 * (and with it the SDK) once, on first use. Until it has loaded, and when it is off, every call is
 * a no-op, so the spawn path pays nothing. The spawner takes {@link RunTelemetry}: a plan whose
 * child creation starts the run's `invoke_agent` span, and the run's end that closes it.
 */
import type { RunRecord, SpawnPlan } from "../runtime/runs.ts";
import type { TelemetryConfig } from "./config.ts";
import type { Tracing } from "./otel-tracing.ts";

/** What a spawner calls (src/hosts/spawn/spawner.ts). */
export interface RunTelemetry {
	/** `plan` with its child creation traced: the run's span starts there, its child's events become chat and tool spans. */
	traced(plan: SpawnPlan): SpawnPlan;
	/** The run is terminal: its span ends with its state, totals and contract. */
	ended(run: RunRecord): void;
}

/** The telemetry of one host process. */
export interface Telemetry {
	/** Turn tracing on (loading OpenTelemetry) for `config`, or leave it off for null. Idempotent. */
	enable(config: TelemetryConfig | null): Promise<void>;
	/** Whether spans are being recorded. */
	readonly enabled: boolean;
	/**
	 * The hooks of a spawner whose runs were spawned by run `spawnedBy` (a nested child's spawner),
	 * or by the host's session (null): a run's span goes under its spawner run's span if there is one.
	 */
	runs(spawnedBy?: string | null): RunTelemetry;
	continueTrace(traceparent: string | undefined): void;
	startTurn(sessionId: string, turn: number): void;
	endTurn(): void;
	/** Run `body` inside an `invoke_workflow {name}` span. */
	workflow<T>(name: string, body: () => Promise<T>): Promise<T>;
	/** Export what is buffered; never throws (an unreachable collector must not fail a run). */
	flush(): Promise<void>;
	shutdown(): Promise<void>;
}

/** The telemetry of this process; off until {@link Telemetry.enable} gets a config. */
export function createTelemetry(): Telemetry {
	let tracing: Tracing | null = null;
	let ready: Promise<void> = Promise.resolve();
	let enabling = false;
	/** Runs now, or once OpenTelemetry has loaded (in call order). */
	const withTracing = (use: (t: Tracing) => void) => {
		if (tracing) use(tracing);
		else if (enabling) void ready.then(() => tracing && use(tracing));
	};
	const unsubscribes = new Map<string, () => void>();

	const runs = (spawnedBy: string | null = null): RunTelemetry => ({
		traced(plan) {
			if (!tracing && !enabling) return plan;
			return {
				...plan,
				async createChild(run, cwd, resumeFile) {
					await ready;
					// A nested run's span goes under its spawning run's (issue 21).
					if (tracing) run.traceId = tracing.startRun(run, spawnedBy ?? run.parentId ?? null);
					const child = await plan.createChild(run, cwd, resumeFile);
					const t = tracing;
					if (t && child.observe) unsubscribes.set(run.id, child.observe((event) => t.observe(run.id, event)));
					return child;
				},
			};
		},
		ended(run) {
			unsubscribes.get(run.id)?.();
			unsubscribes.delete(run.id);
			tracing?.endRun(run);
		},
	});

	return {
		async enable(config) {
			if (!config || tracing || enabling) return ready;
			enabling = true;
			ready = import("./otel-tracing.ts").then(
				(module) => {
					tracing = module.createTracing(config);
				},
				(error: unknown) => {
					process.stderr.write(`cadre: telemetry is off: OpenTelemetry could not be loaded (${error instanceof Error ? error.message : String(error)})\n`);
				},
			);
			await ready;
		},
		get enabled() {
			return tracing !== null;
		},
		runs,
		continueTrace: (traceparent) => withTracing((t) => t.continueTrace(traceparent)),
		startTurn: (sessionId, turn) => withTracing((t) => t.startTurn(sessionId, turn)),
		endTurn: () => withTracing((t) => t.endTurn()),
		async workflow(name, body) {
			await ready;
			const span = tracing?.startWorkflow(name);
			try {
				const value = await body();
				span?.end(null);
				return value;
			} catch (error) {
				span?.end(error instanceof Error ? error.message : String(error));
				throw error;
			}
		},
		async flush() {
			await ready;
			await tracing?.flush().catch(() => undefined);
		},
		async shutdown() {
			await ready;
			await tracing?.shutdown().catch(() => undefined);
		},
	};
}
