/**
 * One child's long-lived sandboxed shell (ADR 0195): its sandbox (bubblewrap and the library's
 * seccomp helper, or macOS's profile) is started once, at the child's first bash call, running the
 * shell server (src/sandbox/shell-server.ts) under the parent's node; every later command is a
 * request to it. A bash call then costs a process start inside the sandbox, not a sandbox start.
 * It has the shape of pi's bash `operations.exec`: output streamed, the exit code (128 + signal
 * when killed), "aborted" and "timeout:N" errors as pi's own local shell throws them.
 *
 * If the server ends (a command killed it), the commands in flight fail with a clear error and the
 * next call starts a new one. Closing it kills the sandbox and everything still running in it.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { constants as osConstants } from "node:os";
import type { SandboxPolicy } from "../resolve/sandbox-policy.ts";
import { type ChildWrap, commandEnvironment, sandboxedCommand } from "./manager.ts";
import { type ShellEvent, shellServerSource } from "./shell-server.ts";

/** Options of one command, as pi's bash tool passes them. */
export interface SandboxExecOptions {
	onData(data: Buffer): void;
	signal?: AbortSignal;
	/** Seconds. */
	timeout?: number;
	env?: NodeJS.ProcessEnv;
}

export interface SandboxShell {
	exec(command: string, cwd: string, options: SandboxExecOptions): Promise<{ exitCode: number | null }>;
	/** Kills the sandbox and whatever still runs in it; a later exec starts a new one. */
	close(): void;
}

/** The variables the wrap's fixed command reads: the node to run and the server's source. */
const NODE_VARIABLE = "CADRE_SHELL_NODE";
const SOURCE_VARIABLE = "CADRE_SHELL_SERVER";
/** A line longer than this from the server is not one it wrote: the shell is ended. */
const MAX_LINE = 8 * 1024 * 1024;
/** Variables that would change how the server's own node starts (they still reach every command). */
const NODE_STARTUP_VARIABLES = ["NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE", "NODE_V8_COVERAGE"];

interface Pending {
	onData(data: Buffer): void;
	settle(outcome: { code: number | null; signal: string | null } | Error): void;
}

interface Server {
	process: ChildProcessWithoutNullStreams;
	ready: Promise<void>;
	pending: Map<number, Pending>;
	send(line: object): void;
}

/** The long-lived shell of a child whose sandbox is `wrap()` (made on first use) and `policy`. */
export function sandboxShell(wrap: () => Promise<ChildWrap>, policy: SandboxPolicy): SandboxShell {
	let server: Server | null = null;
	let nextId = 1;
	const start = async (): Promise<Server> => {
		const made = await wrap();
		const { command, env } = sandboxedCommand(made, policy, `exec "$${NODE_VARIABLE}" -e "$${SOURCE_VARIABLE}"`, process.env);
		for (const name of NODE_STARTUP_VARIABLES) delete env[name];
		const child = spawn("/bin/sh", ["-c", command], { env: { ...env, [NODE_VARIABLE]: process.execPath, [SOURCE_VARIABLE]: shellServerSource() }, detached: true, stdio: ["pipe", "pipe", "pipe"] });
		const started = serve(child, () => {
			if (server?.process === child) server = null;
		});
		started.send({ t: "base", env });
		return started;
	};
	let starting: Promise<Server> | null = null;
	const current = async () => {
		if (server) return server;
		starting ??= start().then(
			(started) => {
				server = started;
				starting = null;
				return started;
			},
			(error) => {
				starting = null;
				throw error;
			},
		);
		const started = await starting;
		await started.ready;
		return started;
	};
	return {
		async exec(command, cwd, options) {
			const timeoutMs = options.timeout === undefined ? undefined : options.timeout * 1000;
			if (options.signal?.aborted) throw new Error("aborted");
			const running = await current();
			// the sandbox may have taken a while to start: an abort meanwhile ends the call here
			if (options.signal?.aborted) throw new Error("aborted");
			const id = nextId++;
			const env = commandEnvironment(policy, options.env ?? process.env);
			let timedOut = false;
			const kill = () => running.send({ t: "kill", id });
			const onAbort = () => kill();
			const timer = timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), kill()), timeoutMs);
			options.signal?.addEventListener("abort", onAbort, { once: true });
			running.process.ref();
			try {
				const outcome = await new Promise<{ code: number | null; signal: string | null }>((resolve, reject) => {
					running.pending.set(id, { onData: options.onData, settle: (o) => (o instanceof Error ? reject(o) : resolve(o)) });
					running.send({ t: "run", id, command, cwd, env });
				});
				if (options.signal?.aborted) throw new Error("aborted");
				if (timedOut) throw new Error(`timeout:${options.timeout}`);
				const signalNumber = outcome.signal ? (osConstants.signals as Record<string, number>)[outcome.signal] ?? 0 : null;
				return { exitCode: outcome.code ?? (signalNumber !== null ? 128 + signalNumber : 1) };
			} finally {
				if (timer) clearTimeout(timer);
				options.signal?.removeEventListener("abort", onAbort);
				if (running.pending.size === 0) running.process.unref();
			}
		},
		close() {
			const closing = server;
			server = null;
			if (closing) killGroup(closing.process.pid);
			if (starting) void starting.then((late) => killGroup(late.process.pid), () => {});
		},
	};
}

/** Reads the server's event lines; every line is untrusted (a command can write to this pipe). */
function serve(child: ChildProcessWithoutNullStreams, ended: () => void): Server {
	const pending = new Map<number, Pending>();
	let markReady: () => void = () => {};
	let failReady: (error: Error) => void = () => {};
	const ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failReady = reject)));
	ready.catch(() => {});
	let stderr = "";
	let buffered = "";
	const handle = (line: string) => {
		let event: ShellEvent;
		try {
			event = JSON.parse(line) as ShellEvent;
		} catch {
			return;
		}
		if (event?.t === "ready") return markReady();
		const waiting = typeof event?.id === "number" ? pending.get(event.id) : undefined;
		if (!waiting) return;
		if (event.t === "out" && typeof event.d === "string") waiting.onData(Buffer.from(event.d, "base64"));
		else if (event.t === "exit") {
			pending.delete(event.id);
			waiting.settle({ code: typeof event.code === "number" ? event.code : null, signal: typeof event.signal === "string" ? event.signal : null });
		} else if (event.t === "error") {
			pending.delete(event.id);
			waiting.settle(new Error(String(event.message)));
		}
	};
	child.stdout.setEncoding("utf8");
	child.stdout.on("data", (text: string) => {
		buffered += text;
		if (buffered.length > MAX_LINE && !buffered.includes("\n")) {
			killGroup(child.pid);
			return;
		}
		for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
			handle(buffered.slice(0, newline));
			buffered = buffered.slice(newline + 1);
		}
	});
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (text: string) => {
		stderr = (stderr + text).slice(-2000);
	});
	child.stdin.on("error", () => {});
	child.on("close", (code, signal) => {
		ended();
		const why = new Error(`cadre: the child's sandboxed shell ended (${signal ?? `exit ${code}`})${stderr.trim() ? `: ${stderr.trim()}` : ""}; the next command starts a new one`);
		failReady(why);
		for (const waiting of pending.values()) waiting.settle(why);
		pending.clear();
	});
	child.unref();
	for (const stream of [child.stdin, child.stdout, child.stderr] as unknown as { unref?(): void }[]) stream.unref?.();
	return { process: child, ready, pending, send: (line) => child.stdin.write(`${JSON.stringify(line)}\n`) };
}

function killGroup(pid: number | undefined): void {
	if (pid === undefined) return;
	try {
		process.kill(-pid, "SIGKILL");
	} catch {
		// already gone
	}
}
