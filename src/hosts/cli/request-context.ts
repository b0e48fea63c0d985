/**
 * The glue between the CLI's request flags and the resolver (spec 06): parses `--request` and the
 * flags into a spawn request, states the parent's facts a CLI has no session for (pi's configured
 * defaults; the model pi would pick for a new session), loads the files and builds the model
 * catalog. Shared by `explain` and `prompt`.
 */
import { join, resolve } from "node:path";
import { normalizeThinking, type ThinkingLevel } from "../../core/values.ts";
import { loadAll } from "../../files/load.ts";
import { suggestKey } from "../../files/suggest.ts";
import { findGitRoot } from "../../files/discovery.ts";
import { builtinToolNames, DEFAULT_PARENT_TOOLS } from "../../resolve/tools.ts";
import { spawnReader } from "../../resolve/spawn-reader.ts";
import type { ModelCatalog, ResolveInput, SpawnRequest } from "../../resolve/types.ts";
import { unverifiedModels } from "../../resolve/unverified-models.ts";
import { createModelCatalog } from "../../runtime/pi/model-catalog.ts";
import { sandboxPlatform } from "../../sandbox/platform.ts";
import { resolve as resolveSpawn } from "../../resolve/resolve.ts";
import { remoteNames } from "../../resolve/workspace.ts";
import { probeWorkspaces } from "../../workspaces/remote-sandbox.ts";
import { piDefaults } from "../../runtime/pi/pi-defaults.ts";
import { type NewSessionModel, newSessionModel } from "../../runtime/pi/parent-model.ts";
import { type CliIo, UsageError } from "./io.ts";
import { cliHome } from "./list-command.ts";
import type { RequestFlagOptions } from "./options.ts";

/** `~` at the start of a path means the home directory (pi's convention for its agent dir). */
function expandHome(path: string, home: string): string {
	return path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/** The home directory and pi's agent dir (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`). */
export function cliDirs(io: CliIo): { homeDir: string; agentDir: string } {
	const homeDir = cliHome(io);
	const fromEnv = io.env.PI_CODING_AGENT_DIR;
	const agentDir = fromEnv && fromEnv !== "" ? resolve(io.cwd, expandHome(fromEnv, homeDir)) : join(homeDir, ".pi", "agent");
	return { homeDir, agentDir };
}

/** Splits `read, bash edit` into tool names. */
export function parseToolList(list: string): string[] {
	return list
		.split(/[\s,]+/)
		.map((name) => name.trim())
		.filter((name) => name !== "");
}

/** The `subagent` tool's parameters `--request` may hold (TYPE is positional; resume is not a new spawn). */
const REQUEST_KEYS = [
	"prompt",
	"description",
	"model",
	"thinking",
	"capability",
	"persona",
	"isolation",
	"copy_uncommitted",
	"cwd",
	"max_turns",
	"run_in_background",
	"inherit_context",
	"inputs",
	"output_schema",
	"budget",
	"workspace",
];

/** `--max-turns 5` → 5; anything else stays a string so the resolver refuses it with the valid values. */
function turns(raw: string): number | string {
	return /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
}

/**
 * A request object from JSON text (`--request`, a `cadre run --batch` line, named `where` in
 * errors): the subagent tool's parameters, with `typeKey` (a batch line's `type`) allowed too.
 */
export function requestFromJson(text: string, where: string, typeKey?: string): Record<string, unknown> {
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		throw new UsageError(`${where} is not valid JSON: ${(error as Error).message}`);
	}
	if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
		throw new UsageError(`${where} must be a JSON object of the subagent tool's parameters`);
	}
	const request = { ...(parsed as Record<string, unknown>) };
	const named = typeKey ? `name the type with "${typeKey}"` : "TYPE is the positional argument";
	if ("subagent_type" in request) throw new UsageError(`${where} must not contain subagent_type: ${named}`);
	if ("resume" in request) throw new UsageError(`${where} must not contain resume: \`cadre run --resume ID\` continues a run (explain and prompt resolve new spawns only)`);
	const allowed = typeKey ? [typeKey, ...REQUEST_KEYS] : REQUEST_KEYS;
	for (const key of Object.keys(request)) {
		if (allowed.includes(key)) continue;
		const suggestion = suggestKey(key, allowed, "snake");
		const mean = suggestion ? `did you mean ${suggestion.key}? ` : "";
		throw new UsageError(`${where} has an unknown key ${key}: ${mean}(the subagent tool's parameters: ${allowed.join(", ")})`);
	}
	return request;
}

/** The spawn request from `--request` JSON and the flags (a flag overrides the same key). */
export function parseRequestFlags(opts: RequestFlagOptions): SpawnRequest {
	const request: Record<string, unknown> = opts.request === undefined ? {} : requestFromJson(opts.request, "--request");
	const flags: [keyof SpawnRequest, unknown][] = [
		["persona", opts.persona],
		["model", opts.model],
		["thinking", opts.thinking],
		["capability", opts.capability],
		["isolation", opts.isolation],
		["max_turns", opts.maxTurns === undefined ? undefined : turns(opts.maxTurns)],
		["cwd", opts.cwdRequest],
	];
	for (const [key, value] of flags) if (value !== undefined) request[key] = value;
	return request as SpawnRequest;
}

/** The parent facts the `--parent-*` flags state (a key is absent when its flag is). */
export function parentFactFlags(opts: RequestFlagOptions): { model?: string | null; thinking?: ThinkingLevel; activeTools?: string[] } {
	const facts: { model?: string | null; thinking?: ThinkingLevel; activeTools?: string[] } = {};
	if (opts.parentThinking !== undefined) {
		const level = normalizeThinking(opts.parentThinking);
		if (level === null) throw new UsageError(`--parent-thinking "${opts.parentThinking}" is not a thinking level (off, minimal, low, medium, high, xhigh, max)`);
		facts.thinking = level;
	}
	if (opts.parentModel !== undefined) facts.model = opts.parentModel.trim().toLowerCase() === "none" ? null : opts.parentModel.trim();
	if (opts.parentTools !== undefined) facts.activeTools = parseToolList(opts.parentTools);
	return facts;
}

/**
 * The catalog a preview resolves with. The parent runs on its model, so its children may (ADR
 * 0076). Until pi has a credential for any model, a model pi knows resolves marked unverified
 * instead of refusing (ADR 0103); with one, the preview answers as a spawn would.
 */
async function previewCatalog(agentDir: string, parentModel: string | null, runtime: NewSessionModel["runtime"]): Promise<ModelCatalog> {
	const catalog = await createModelCatalog({ agentDir, parentModel, runtime });
	return runtime.getAvailableSnapshot().length === 0 ? unverifiedModels(catalog) : catalog;
}

/** Everything `resolve` needs for a CLI invocation. */
export async function buildCliResolveInput(type: string, opts: RequestFlagOptions, io: CliIo): Promise<ResolveInput> {
	const request = parseRequestFlags(opts);
	const cwd = resolve(io.cwd, opts.cwd ?? ".");
	if (!spawnReader.isDirectory(cwd)) throw new UsageError(`--cwd ${cwd} is not a directory`);
	const { homeDir, agentDir } = cliDirs(io);
	const projectTrusted = opts.trustProject === true;
	const loaded = loadAll({ cwd, agentDir, homeDir, projectTrusted });
	const defaults = piDefaults({ agentDir, cwd, projectTrusted });

	const flags = parentFactFlags(opts);
	const thinking = flags.thinking ?? defaults.thinking;
	// The parent's model is what pi would pick for a new session here (ADR 0103), as in `cadre run`.
	const picked = await newSessionModel({ agentDir, cwd, projectTrusted });
	const model = flags.model !== undefined ? flags.model : picked.model;
	const activeTools = flags.activeTools ?? [...DEFAULT_PARENT_TOOLS];
	// The universe: pi's built-ins in pi's order, then the parent's other active tools (extension
	// tools the parent has) by name.
	const builtins = builtinToolNames();
	const extensionTools = [...new Set(activeTools.filter((name) => !builtins.includes(name) && !name.includes("*")))].sort();

	const input: ResolveInput = {
		request,
		type,
		loaded,
		// The project's trust and this machine's OS sandbox, as a spawn from here would see them (issue 27).
		parent: { cwd, model, thinking, activeTools, toolUniverse: [...builtins, ...extensionTools], repoRoot: findGitRoot(cwd), projectTrusted, sandbox: sandboxPlatform(io.env) },
		models: await previewCatalog(agentDir, flags.model === undefined && picked.how === "unverified" ? null : model, picked.runtime),
		reader: spawnReader,
		toolKinds: loaded.settings.toolKinds,
	};
	return withProbedWorkspaces(input);
}

/**
 * The input with the sandbox facts of the SSH workspaces the type may go to, probed as a spawn
 * would probe them (ADR 0191): none in settings, none named, or `sandbox: off` — no connection.
 */
async function withProbedWorkspaces(input: ResolveInput): Promise<ResolveInput> {
	const workspaces = input.loaded.settings.workspaces ?? {};
	if (Object.keys(workspaces).length === 0) return input;
	const first = resolveSpawn(input);
	const names = remoteNames(first.trace.workspace?.value);
	if (names.length === 0 || first.trace.sandbox?.value === "off") return input;
	return { ...input, parent: { ...input.parent, remoteSandbox: await probeWorkspaces(workspaces, names) } };
}
