/**
 * The one adapter between cadre and pi's SDK: every call into `@earendil-works/pi-coding-agent`
 * lives here, so a pi upgrade touches one file. Sections are owned by different areas; edit only
 * your own.
 */

// ── Models ──
// The model catalog resolution consults (spec 02 "Models"): a synchronous snapshot over pi's
// ModelRuntime (models.json in the agent dir, pi's built-in catalog, credentials from pi's auth
// and the environment; never the network). Names resolve through pi's own `--model` resolver,
// with two differences: the model must have credentials, and an id pi would synthesize for a
// known provider ("Using custom model id") counts as unknown. The runtime reuses
// `catalogFromRuntime` with the parent session's live ModelRuntime.

import { join as joinPath } from "node:path";
import { clampThinkingLevel } from "@earendil-works/pi-ai/models";
import {
	ModelRuntime as PiModelRuntime,
	resolveCliModel,
	SettingsManager as PiSettingsManager,
} from "@earendil-works/pi-coding-agent";
import { normalizeThinking, type ThinkingLevel as CadreThinkingLevel } from "../core/values.ts";
import type { ModelCatalog, ModelLookup } from "../resolve/types.ts";

/** pi's built-in default thinking level (`DEFAULT_THINKING_LEVEL` in pi's core/defaults). */
export const PI_DEFAULT_THINKING_LEVEL: CadreThinkingLevel = "medium";

/** How many close matches a failed lookup lists. */
const CLOSEST_LIMIT = 3;

export interface ModelCatalogOptions {
	/** pi's agent dir: `auth.json` and `models.json` are read from it. */
	agentDir: string;
	/** A live ModelRuntime to reuse (the parent session's); created offline from agentDir when absent. */
	runtime?: PiModelRuntime;
	/** The parent's model (any name pi resolves): usable by its children whatever the snapshot says. */
	parentModel?: string | null;
}

/**
 * Builds the catalog for the agent dir (or over a given runtime). Never reaches the network.
 * `ModelRuntime.create` awaits pi's availability pass, so the snapshot is settled here.
 */
export async function createModelCatalog(options: ModelCatalogOptions): Promise<ModelCatalog> {
	const runtime =
		options.runtime ??
		(await PiModelRuntime.create({
			authPath: joinPath(options.agentDir, "auth.json"),
			modelsPath: joinPath(options.agentDir, "models.json"),
			allowModelNetwork: false,
		}));
	return catalogFromRuntime(runtime, { parentModel: options.parentModel ?? null });
}

/** What a catalog knows beyond pi's availability snapshot. */
export interface CatalogFacts {
	/** The parent's model: it runs on it, so its children may (ADR 0076). */
	parentModel?: string | null;
	/** Providers whose credentials were checked with pi directly (`checkAuth`): true when configured. */
	checked?: ReadonlyMap<string, boolean>;
}

/** A catalog over a live runtime, which also says which failed lookups only the snapshot decided. */
export interface RuntimeCatalog extends ModelCatalog {
	/** The provider of `name` when its lookup failed as no-credentials by the snapshot alone (not checked), else null. */
	uncheckedProvider(name: string): string | null;
	readonly facts: Required<CatalogFacts>;
}

/** Edit distance, for "closest available models". */
function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
		}
		previous = current;
	}
	return previous[b.length] ?? 0;
}

/** The available models closest to `name`: containing it first, then by edit distance on the id. */
export function closestModels(name: string, available: readonly string[], limit = CLOSEST_LIMIT): string[] {
	const wanted = name.toLowerCase();
	const bare = wanted.includes("/") ? wanted.slice(wanted.indexOf("/") + 1) : wanted;
	return available
		.map((full) => {
			const lower = full.toLowerCase();
			const id = lower.slice(lower.indexOf("/") + 1);
			const contains = lower.includes(bare) || bare.includes(id);
			return { full, score: (contains ? 0 : 1000) + Math.min(editDistance(bare, id), editDistance(wanted, lower)) };
		})
		.sort((a, b) => a.score - b.score || a.full.localeCompare(b.full))
		.slice(0, limit)
		.map((entry) => entry.full);
}

/** The `provider/id` pi resolves `name` to among the models it knows (credentials aside), or why not. */
function knownModel(runtime: PiModelRuntime, name: string): { full: string; provider: string } | { error: string } {
	const result = resolveCliModel({ cliModel: name, modelRuntime: runtime });
	if (!result.model) return { error: (result.error ?? `model "${name}" not found`).replace(/ Use --list-models[^.]*\./, "") };
	const { provider, id } = result.model;
	if (!runtime.getModel(provider, id)) return { error: `"${id}" is not a model of provider "${provider}" (pi would invent a custom model id)` };
	return { full: `${provider}/${id}`, provider };
}

/**
 * A catalog over a ModelRuntime. Lookups are memoized, so resolution stays cheap and stable. A
 * model is usable when it is the parent's, when its provider was checked configured, or when pi's
 * availability snapshot lists it or its provider.
 */
export function catalogFromRuntime(runtime: PiModelRuntime, facts: CatalogFacts = {}): RuntimeCatalog {
	const available = runtime.getAvailableSnapshot().map((model) => `${model.provider}/${model.id}`);
	const availableSet = new Set(available);
	const checked = facts.checked ?? new Map<string, boolean>();
	const parentModel = facts.parentModel ? knownModel(runtime, facts.parentModel) : null;
	const parentFull = parentModel && "full" in parentModel ? parentModel.full : null;
	const memo = new Map<string, ModelLookup>();
	const unchecked = new Map<string, string>();
	const fail = (name: string, reason: "unknown" | "no-credentials", message: string): ModelLookup => ({
		ok: false,
		reason,
		message,
		closest: closestModels(name, available),
	});
	const lookupOnce = (name: string): ModelLookup => {
		const known = knownModel(runtime, name);
		if ("error" in known) return fail(name, "unknown", known.error);
		const { full, provider } = known;
		if (full === parentFull || checked.get(provider) === true) return { ok: true, id: full };
		if (checked.get(provider) === false || (!availableSet.has(full) && !runtime.hasConfiguredAuth(provider))) {
			if (!checked.has(provider)) unchecked.set(name, provider);
			return fail(name, "no-credentials", `${full} has no credentials (log in with pi or set the provider's API key)`);
		}
		return { ok: true, id: full };
	};
	return {
		facts: { parentModel: facts.parentModel ?? null, checked },
		uncheckedProvider: (name) => unchecked.get(name) ?? null,
		lookup(name) {
			let found = memo.get(name);
			if (!found) {
				found = lookupOnce(name);
				memo.set(name, found);
			}
			return found;
		},
		clampThinking(fullId, level) {
			const slash = fullId.indexOf("/");
			const model = slash < 0 ? undefined : runtime.getModel(fullId.slice(0, slash), fullId.slice(slash + 1));
			return model ? (clampThinkingLevel(model, level) as CadreThinkingLevel) : level;
		},
	};
}

const catalogs = new WeakMap<PiModelRuntime, { available: unknown; catalog: RuntimeCatalog }>();

/**
 * The model catalog of a live runtime for a parent on `parentModel`, rebuilt when pi's
 * available-model snapshot changes (which also drops the providers checked against the older one).
 */
export function liveCatalog(runtime: PiModelRuntime, parentModel: string | null): RuntimeCatalog {
	const available = runtime.getAvailableSnapshot();
	const cached = catalogs.get(runtime);
	if (cached && cached.available === available && cached.catalog.facts.parentModel === parentModel) return cached.catalog;
	const checked = cached && cached.available === available ? cached.catalog.facts.checked : undefined;
	const catalog = catalogFromRuntime(runtime, { parentModel, checked });
	catalogs.set(runtime, { available, catalog });
	return catalog;
}

/**
 * Runs `use` (a resolution) over the live catalog, and when a lookup in it failed as no-credentials
 * only because pi's snapshot does not list the provider — pi's asynchronous availability check has
 * not landed, or the provider was registered after it — checks those providers with pi
 * (`checkAuth`) and runs `use` again over a catalog that knows the answers (ADR 0076). The
 * answers are kept until the snapshot changes. `use` must be pure: it may run twice.
 */
export async function withAvailableModels<T>(runtime: PiModelRuntime, parentModel: string | null, use: (models: ModelCatalog) => T): Promise<T> {
	const catalog = liveCatalog(runtime, parentModel);
	const doubted = new Set<string>();
	const tracked: ModelCatalog = {
		lookup(name) {
			const found = catalog.lookup(name);
			const provider = catalog.uncheckedProvider(name);
			if (provider) doubted.add(provider);
			return found;
		},
		clampThinking: (id, level) => catalog.clampThinking(id, level),
	};
	let first: { value: T } | { error: unknown };
	try {
		first = { value: use(tracked) };
	} catch (error) {
		first = { error };
	}
	if (doubted.size === 0) {
		if ("error" in first) throw first.error;
		return first.value;
	}
	const answers = await Promise.all(
		[...doubted].map(async (provider) => [provider, (await runtime.checkAuth(provider).catch(() => undefined)) !== undefined] as const),
	);
	const checked = new Map([...catalog.facts.checked, ...answers]);
	const rechecked = catalogFromRuntime(runtime, { parentModel, checked });
	if (runtime.getAvailableSnapshot() === catalogs.get(runtime)?.available) {
		catalogs.set(runtime, { available: runtime.getAvailableSnapshot(), catalog: rechecked });
	}
	return use(rechecked);
}

/** pi's configured defaults for a parent without a session (the CLI). */
export interface PiDefaults {
	/** `provider/model` (or the bare model) from `defaultProvider`/`defaultModel`, or null. */
	model: string | null;
	/** `defaultThinkingLevel`, else pi's built-in default. */
	thinking: CadreThinkingLevel;
}

/**
 * Reads pi's `settings.json` (`<agentDir>/settings.json`, plus the project's `.pi/settings.json`
 * only when the project is trusted — what pi itself would use in `cwd`).
 */
export function piDefaults(options: { agentDir: string; cwd: string; projectTrusted: boolean }): PiDefaults {
	const settings = PiSettingsManager.create(options.cwd, options.agentDir, { projectTrusted: options.projectTrusted });
	const provider = settings.getDefaultProvider();
	const model = settings.getDefaultModel();
	return {
		model: model ? (provider ? `${provider}/${model}` : model) : null,
		thinking: normalizeThinking(settings.getDefaultThinkingLevel()) ?? PI_DEFAULT_THINKING_LEVEL,
	};
}

/** pi's configured default model (`defaultProvider/defaultModel`), or null. */
export function defaultParentModel(agentDir: string, cwd: string = agentDir): string | null {
	return piDefaults({ agentDir, cwd, projectTrusted: false }).model;
}

/** pi's configured default thinking level, else pi's built-in default. */
export function defaultThinkingLevel(agentDir: string, cwd: string = agentDir): CadreThinkingLevel {
	return piDefaults({ agentDir, cwd, projectTrusted: false }).thinking;
}

// ── Sessions ──
// Child sessions in the parent's process (spec 04 "In-process children"): version check, the
// parent's model runtime, the extension set children load, the call-time capability guard, and a
// small handle the run lifecycle drives without touching pi types.

import { existsSync, lstatSync, realpathSync } from "node:fs";
import { basename, dirname, extname, join, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import {
	type AgentSession,
	type AgentSessionEvent,
	createAgentSession,
	createExtensionRuntime,
	DefaultResourceLoader,
	type Extension,
	type ExtensionContext,
	type LoadExtensionsResult,
	type ModelRuntime,
	type ToolDefinition,
	parseArgs,
	type RegisteredTool,
	type ResourceLoader,
	SessionManager,
	SettingsManager,
	type Skill,
	getDocsPath,
	getExamplesPath,
	getReadmePath,
	VERSION as PI_VERSION,
} from "@earendil-works/pi-coding-agent";
import type { Diagnostic } from "../core/diagnostics.ts";
import type { ThinkingLevel } from "../core/values.ts";
import { DEFAULT_MAX_FILE_BYTES, type ReadRule, readFileUnder } from "../files/read-confined.ts";
import type { StructuredState } from "./contract.ts";
import { RESULT_TOOL_DESCRIPTION, type ResultTool, SUBMIT_RESULT_TOOL } from "./structured-result.ts";

/** The pi versions this adapter is written against (`>=1.6.0 <2`). */
export const SUPPORTED_PI_RANGE = ">=1.6.0 <2";

/** Whether `version` satisfies `>=1.6.0 <2`; returns the reason when not. */
export function checkPiVersion(version: string = PI_VERSION): { ok: true; version: string } | { ok: false; version: string; message: string } {
	const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
	const major = Number(match?.[1] ?? Number.NaN);
	const minor = Number(match?.[2] ?? Number.NaN);
	if (match && major === 1 && minor >= 6) return { ok: true, version };
	return {
		ok: false,
		version,
		message: `cadre supports pi ${SUPPORTED_PI_RANGE}, but this pi is ${version}; sub-agents are disabled. Install a supported pi or a cadre release built for pi ${version}.`,
	};
}

/** The parent's model runtime (same providers, keys and extension-registered models). */
export function parentModelRuntime(ctx: ExtensionContext): ModelRuntime {
	// pi builds `ctx.modelRegistry` as `new ModelRegistry(session's ModelRuntime)` and keeps it
	// in a TypeScript-private field; reading it is the only way to share the runtime in 1.6.
	const runtime = (ctx.modelRegistry as unknown as { runtime?: ModelRuntime }).runtime;
	if (!runtime) throw new Error("cadre: pi's model registry has no runtime; this pi version is not supported.");
	return runtime;
}

/**
 * cadre's own pi extension entries, never loaded into children (depth 1): the extension module
 * (`.ts` in a checkout, `.js` in the build) and the package's `extension/` entry pi loads (ADR 0003).
 */
export const CADRE_EXTENSION_ENTRIES: readonly string[] = (() => {
	const here = fileURLToPath(import.meta.url);
	const dir = dirname(here);
	return [resolvePath(dir, `../hosts/pi/extension${extname(here)}`), resolvePath(dir, "../../extension/index.ts"), resolvePath(dir, "../../extension/index.js")];
})();

function realOrSelf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** An extension's `package.json`: a regular file, bounded (ADR 0060), wherever the extension lives. */
const MANIFEST_RULE: ReadRule = { confine: "any", root: "/", maxBytes: DEFAULT_MAX_FILE_BYTES };

/** The nearest directory above `path` holding a `package.json`, with the package's name. */
function packageOf(path: string): { dir: string; name: string | null } | null {
	for (let dir = dirname(path); ; dir = dirname(dir)) {
		const manifest = join(dir, "package.json");
		if (existsSync(manifest)) {
			try {
				const read = readFileUnder(manifest, MANIFEST_RULE);
				const name = read.ok ? (JSON.parse(read.text) as { name?: unknown }).name : null;
				return { dir, name: typeof name === "string" ? name : null };
			} catch {
				return { dir, name: null };
			}
		}
		if (dirname(dir) === dir) return null;
	}
}

/**
 * Whether an extension path matches one `childExtensions.exclude` entry: the path, the file stem,
 * the directory of an `index` file, an `npm:` / `node_modules` name, or the extension's package
 * (its directory name or `package.json` name) — never any other ancestor directory.
 */
export function extensionExcluded(path: string, exclude: readonly string[]): boolean {
	const stem = basename(path).replace(/\.(ts|js|mjs|cjs)$/, "");
	const parentDir = basename(dirname(path));
	const real = realOrSelf(path);
	let pkg: ReturnType<typeof packageOf> | undefined;
	for (const raw of exclude) {
		const entry = raw.replace(/^npm:/, "").replace(/@[^/@]*$/, "");
		if (entry === path || entry === real || realOrSelf(resolvePath(entry)) === real) return true;
		if (entry === stem || (stem === "index" && entry === parentDir)) return true;
		if (path.includes(`/node_modules/${entry}/`)) return true;
		pkg ??= packageOf(path);
		if (pkg && (entry === basename(pkg.dir) || entry === pkg.name)) return true;
	}
	return false;
}

/**
 * The `-e` extension paths of a `pi` command line in this process (empty when pi is embedded), and
 * whether it ran with `--no-extensions` (then pi loaded only those paths).
 */
function cliExtensions(): { paths: string[]; noExtensions: boolean } {
	const script = process.argv[1] ?? "";
	if (!/(^|[/\\])(pi|cli\.js)$/.test(script) || !script.includes("pi")) return { paths: [], noExtensions: false };
	try {
		const args = parseArgs(process.argv.slice(2));
		return { paths: args.extensions ?? [], noExtensions: args.noExtensions === true };
	} catch {
		return { paths: [], noExtensions: false };
	}
}

/** Options for {@link discoverChildExtensions}. */
export interface DiscoverChildExtensionsOptions {
	/** The parent's cwd (discovery runs as pi would for the parent). */
	cwd: string;
	agentDir: string;
	/** Whether the parent's session trusts the project: untrusted project extensions never load. */
	projectTrusted: boolean;
	/** Settings `childExtensions.exclude`. */
	exclude: readonly string[];
	/** Extra extension paths the host knows the parent loaded (SDK embedders). */
	extraPaths?: readonly string[];
}

/** What the parent loaded, as paths children reload: cadre itself and excluded ones removed. */
export interface ChildExtensionSet {
	paths: string[];
	/** Paths left out by `childExtensions.exclude`. */
	excluded: string[];
}

/**
 * The extensions a child loads: those pi discovers for the parent (settings, global and — when
 * trusted — project extension directories, packages) plus the parent's `-e` paths, minus cadre
 * itself, pi's built-in extensions and settings `childExtensions.exclude`. Run once per parent.
 */
export async function discoverChildExtensions(options: DiscoverChildExtensionsOptions): Promise<ChildExtensionSet> {
	const settingsManager = SettingsManager.create(options.cwd, options.agentDir, { projectTrusted: options.projectTrusted });
	const cli = cliExtensions();
	const loader = new DefaultResourceLoader({
		cwd: options.cwd,
		agentDir: options.agentDir,
		settingsManager,
		// `pi --no-extensions`: the parent loaded only its `-e` paths, so children do too.
		noExtensions: cli.noExtensions,
		additionalExtensionPaths: [...cli.paths, ...(options.extraPaths ?? [])],
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await loader.reload();
	return childExtensionSet(loader.getExtensions().extensions, options.exclude);
}

/** cadre's own extension entries by real path (the sources' and the build's). */
let cadreEntries: Set<string> | null = null;
function cadreEntryPaths(): Set<string> {
	cadreEntries ??= new Set(CADRE_EXTENSION_ENTRIES.map(realOrSelf));
	return cadreEntries;
}

/** Whether a loaded extension is cadre's own (never loaded into a child, nor into `cadre run`'s parent). */
function isCadre(extension: Pick<Extension, "path" | "resolvedPath">): boolean {
	return cadreEntryPaths().has(realOrSelf(extension.resolvedPath || extension.path));
}

/** The files of loaded extensions children reload: not pi's built-ins or inline ones, not cadre, minus `exclude`. */
function childExtensionSet(extensions: readonly Extension[], exclude: readonly string[]): ChildExtensionSet {
	const paths: string[] = [];
	const excluded: string[] = [];
	for (const extension of extensions) {
		const path = extension.resolvedPath || extension.path;
		if (path.startsWith("builtin:") || path.startsWith("<") || !existsSync(path)) continue;
		if (isCadre(extension)) continue;
		if (paths.includes(path)) continue;
		if (extensionExcluded(path, exclude)) excluded.push(path);
		else paths.push(path);
	}
	return { paths, excluded };
}

/** Decides whether a child may call a tool: null allows, a string is the refusal reason. */
export type ToolGuard = (toolName: string) => string | null;

/** The answer to a submission ajv rejects: each validation error, for the child to fix. */
function invalidResult(errors: string[]): string {
	return `The result is not valid; fix these and call ${SUBMIT_RESULT_TOOL} again:\n${errors.map((error) => `- ${error}`).join("\n")}`;
}

/**
 * The `submit_result` tool of a child with an `output_schema` (ADR 0098). ajv checks the arguments
 * as the model sent them, before pi's own (coercing) check: an invalid call is answered with ajv's
 * errors; a valid value is kept and ends the run (`terminate`).
 */
function submitResultTool(tool: ResultTool, state: StructuredState): RegisteredTool {
	const rejectInvalid = (args: unknown) => {
		const errors = tool.check(tool.unwrap(args));
		if (errors) {
			state.errors = errors;
			throw new Error(invalidResult(errors));
		}
	};
	return {
		definition: {
			name: SUBMIT_RESULT_TOOL,
			label: "Submit result",
			description: RESULT_TOOL_DESCRIPTION,
			parameters: tool.parameters as unknown as RegisteredTool["definition"]["parameters"],
			prepareArguments(args) {
				state.calls++;
				rejectInvalid(args);
				return args as never;
			},
			async execute(_id, params) {
				// What pi handed on after its own check is validated again: only what ajv accepts is kept.
				rejectInvalid(params);
				state.value = structuredClone(tool.unwrap(params));
				state.errors = null;
				return { content: [{ type: "text", text: "Result accepted." }], details: undefined, terminate: true };
			},
		},
		sourceInfo: { path: GUARD_PATH, source: "cadre", scope: "temporary", origin: "top-level" } as RegisteredTool["sourceInfo"],
	};
}

const GUARD_PATH = "<cadre:capability-guard>";

/**
 * A hand-built extension holding the `tool_call` guard; it runs before every other handler. With
 * a turn limit, every tool call of the last allowed turn is blocked with `terminate`, so pi makes
 * no further model request (the hard `max_turns` ceiling). With an output schema it also holds
 * the child's `submit_result` tool, which the guard always lets through.
 */
function guardExtension(guard: ToolGuard, turnLimit: number | null, result: { tool: ResultTool; state: StructuredState } | null): Extension {
	let turns = 0;
	const onTurnStart = async (...args: unknown[]) => {
		turns++;
		// A turn past the ceiling (the last turn's calls never reached tool_call, e.g. unknown
		// tools): abort before its model request goes out.
		if (turnLimit !== null && turns > turnLimit) (args[1] as ExtensionContext).abort();
	};
	// A turn whose answer failed (pi retries it, or the run ends) does not count toward the limit.
	const onTurnEnd = async (...args: unknown[]) => {
		if (failedTurn(args[0] as { message?: unknown })) turns--;
	};
	const onToolCall = async (...args: unknown[]) => {
		const event = args[0] as { toolName: string };
		const reason = result && event.toolName === SUBMIT_RESULT_TOOL ? null : guard(event.toolName);
		if (reason !== null) return { block: true, reason };
		if (turnLimit !== null && turns >= turnLimit && event.toolName !== SUBMIT_RESULT_TOOL) {
			return { block: true, reason: `cadre: the turn limit (max_turns ${turnLimit}) is reached; give your final answer.`, terminate: true };
		}
		return undefined;
	};
	return {
		path: GUARD_PATH,
		resolvedPath: GUARD_PATH,
		hidden: true,
		sourceInfo: { path: GUARD_PATH, source: "cadre", scope: "temporary", origin: "top-level" } as Extension["sourceInfo"],
		handlers: new Map([
			["turn_start", [onTurnStart]],
			["turn_end", [onTurnEnd]],
			["tool_call", [onToolCall]],
		]),
		tools: new Map(result ? [[SUBMIT_RESULT_TOOL, submitResultTool(result.tool, result.state)]] : []),
		messageRenderers: new Map(),
		commands: new Map(),
		flags: new Map(),
		shortcuts: new Map(),
	};
}

/** A resource loader built from already-resolved data: no discovery per child. */
function childResourceLoader(systemPrompt: string, skills: readonly Skill[], extensions: () => LoadExtensionsResult): ResourceLoader {
	return {
		getExtensions: extensions,
		getSkills: () => ({ skills: [...skills], diagnostics: [] }),
		getPrompts: () => ({ prompts: [], diagnostics: [] }),
		getThemes: () => ({ themes: [], diagnostics: [] }),
		getAgentsFiles: () => ({ agentsFiles: [] }),
		getSystemPrompt: () => systemPrompt,
		getSystemPromptSource: () => undefined,
		getAppendSystemPrompt: () => [],
		getAppendSystemPromptSources: () => [],
		extendResources: () => {},
		reload: async () => {},
	};
}

/** Options for {@link createChildSession}. */
export interface ChildSessionOptions {
	/** The parent's model runtime (never a fresh one). */
	modelRuntime: ModelRuntime;
	/** `provider/id` of the resolved model. */
	model: string;
	/** The level the child runs with (`trace.reasoningEffort.applied`). */
	thinkingLevel: ThinkingLevel;
	/** Absolute working directory of the child. */
	cwd: string;
	/**
	 * The parent's cwd: the child reads pi's settings (compaction, retry, shell, …) from here, as
	 * the parent does, wherever the child runs (a subdirectory, a worktree). Defaults to `cwd`.
	 */
	settingsCwd?: string;
	agentDir: string;
	/** The parent session's project trust. */
	projectTrusted: boolean;
	/** The assembled system prompt (spec 03); pi appends skills and `<cwd>`. */
	systemPrompt: string;
	/** The parent's loaded skills, for the child's own skills catalogue. */
	skills: readonly Skill[];
	/** The effective tool list. */
	tools: readonly string[];
	/** Extension files the child loads (from {@link discoverChildExtensions}). */
	extensionPaths: readonly string[];
	/** The call-time capability guard. */
	guard: ToolGuard;
	/** `max_turns`: tool calls of this turn are blocked with terminate (no further request). */
	turnLimit?: number | null;
	/** The `submit_result` tool of a child with an `output_schema` (always allowed; not in `tools`). */
	resultTool?: ResultTool | null;
	/** Tools that replace pi's built-ins of the same name (the OS sandbox's, ADR 0150). */
	customTools?: ToolDefinition[];
	/** Directory the new transcript goes into. */
	sessionDir: string;
	/** A transcript to continue instead of starting a new one (resume). */
	resumeFile?: string;
	/**
	 * A transcript to copy into a new one in `sessionDir` and continue there (the resume of a run
	 * of the session this one was forked from: the original transcript stays as it was).
	 */
	forkFile?: string;
}

/** Usage totals of a child session. */
export interface ChildUsage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	cost: number;
}

/** How full a child's context window is. */
export interface ChildContext {
	/** Estimated tokens in the context, or null when unknown (right after compaction). */
	tokens: number | null;
	/** The model's context window in tokens. */
	window: number;
	/** `tokens` as a percentage of `window`, or null when unknown. */
	percent: number | null;
}

/** The events a run observes, translated from pi's session events. */
export type ChildEvent =
	| { type: "turn_start"; turn: number }
	| { type: "turn_end"; turn: number; toolCalls: number }
	| { type: "tool_start"; toolName: string; args: unknown }
	| { type: "tool_end"; toolName: string; isError: boolean }
	| { type: "assistant"; text: string; stopReason: string; errorMessage: string | null };

/** What a run holds of a child session: no pi type leaks past this adapter. */
export interface ChildHandle {
	/** The transcript path (the file exists once the first assistant message is written). */
	transcript: string | null;
	/** Subscribe to translated events; returns the unsubscribe function. */
	subscribe(listener: (event: ChildEvent) => void): () => void;
	/** Send the prompt and resolve when the child settles. */
	run(prompt: string): Promise<void>;
	/** Queue a steering message (after the current tool call). */
	steer(text: string): Promise<void>;
	/** Abort the active operation. */
	abort(): Promise<void>;
	/** The last assistant text, or null. */
	lastText(): string | null;
	/** What `submit_result` received, or null when the child has no such tool. */
	structured(): StructuredState | null;
	usage(): ChildUsage;
	/** How full the child's context window is (after its last answer), or null before it is known. */
	contextUsage(): ChildContext | null;
	/** The child's conversation so far, as plain data (the conversation viewer). */
	messages(): ChildMessage[];
	/** Release the session and its extension runtime. */
	dispose(): void;
	/**
	 * What went wrong in the child without ending it: an extension that failed to load (the child
	 * runs without it) or whose handler threw (pi goes on), as `extension-error` diagnostics.
	 */
	diagnostics(): Diagnostic[];
	/**
	 * Messages steered to it that it never read — they came after its last turn — once the steers
	 * in flight have landed. Ask when `run` has settled.
	 */
	unread(): Promise<string[]>;
}

/** At most this many distinct extension errors are kept per child (a handler may throw on every event). */
const MAX_EXTENSION_ERRORS = 20;

/**
 * An `extension-error` diagnostic: the extension's file (with the line and column the stack names
 * in it, when it does), what failed, and what to do.
 */
export function extensionErrorDiagnostic(error: { path: string; event: string; error: string; stack?: string }): Diagnostic {
	const frame = error.stack?.split("\n").find((line) => line.includes(error.path));
	const at = frame ? /:(\d+):(\d+)\)?\s*$/.exec(frame) : null;
	return {
		severity: "error",
		file: error.path,
		line: at ? Number(at[1]) : null,
		column: at ? Number(at[2]) : null,
		code: "extension-error",
		message:
			error.event === "load"
				? `this extension failed to load in the sub-agent, which ran without it: ${error.error}`
				: `this extension's ${error.event} handler threw in the sub-agent: ${error.error}`,
		hint: "fix the extension, or keep it out of sub-agents with childExtensions.exclude in subagents.json",
	};
}

/** Collects a child's extension errors: distinct ones, up to {@link MAX_EXTENSION_ERRORS}. */
function extensionErrorLog() {
	const seen = new Set<string>();
	const diagnostics: Diagnostic[] = [];
	return {
		add(error: { path: string; event: string; error: string; stack?: string }) {
			const key = `${error.path}\0${error.event}\0${error.error}`;
			if (seen.has(key) || diagnostics.length >= MAX_EXTENSION_ERRORS) return;
			seen.add(key);
			diagnostics.push(extensionErrorDiagnostic(error));
		},
		list: () => [...diagnostics],
	};
}

/** Whether a turn ended with a failed model answer (`stopReason: "error"`): pi retries it or the run fails. */
function failedTurn(event: { message?: unknown }): boolean {
	const message = event.message as { role?: string; stopReason?: string } | undefined;
	return message?.role === "assistant" && message.stopReason === "error";
}

function translate(event: AgentSessionEvent, turn: { n: number }): ChildEvent | null {
	switch (event.type) {
		case "turn_start":
			turn.n++;
			return { type: "turn_start", turn: turn.n };
		case "turn_end": {
			const ended: ChildEvent = { type: "turn_end", turn: turn.n, toolCalls: event.toolResults.length };
			if (failedTurn(event)) turn.n--;
			return ended;
		}
		case "tool_execution_start":
			return { type: "tool_start", toolName: event.toolName, args: event.args };
		case "tool_execution_end":
			return { type: "tool_end", toolName: event.toolName, isError: event.isError };
		case "message_end": {
			const message = event.message as { role?: string; content?: unknown; stopReason?: string; errorMessage?: string };
			if (message.role !== "assistant") return null;
			const parts = Array.isArray(message.content) ? (message.content as { type: string; text?: string }[]) : [];
			const text = parts
				.filter((part) => part.type === "text")
				.map((part) => part.text ?? "")
				.join("");
			return { type: "assistant", text, stopReason: message.stopReason ?? "stop", errorMessage: message.errorMessage ?? null };
		}
		default:
			return null;
	}
}

function splitModel(runtime: ModelRuntime, id: string) {
	const slash = id.indexOf("/");
	const provider = slash < 0 ? "" : id.slice(0, slash);
	const modelId = slash < 0 ? id : id.slice(slash + 1);
	const model = runtime.getModel(provider, modelId);
	if (!model) throw new Error(`cadre: model ${id} is not known to the parent's model runtime.`);
	return model;
}

/**
 * Create a child `AgentSession` in-process: the parent's model runtime, the resolved model passed
 * explicitly (also on resume), the assembled prompt with no context files of its own, the effective
 * tools, the parent's extensions reloaded for the child (guard first), a persisted transcript.
 */
export async function createChildSession(options: ChildSessionOptions): Promise<ChildHandle> {
	const model = splitModel(options.modelRuntime, options.model);
	const settingsManager = SettingsManager.create(options.settingsCwd ?? options.cwd, options.agentDir, { projectTrusted: options.projectTrusted });
	const result = options.resultTool ? { tool: options.resultTool, state: { calls: 0, errors: null } as StructuredState } : null;
	const guard = guardExtension(options.guard, options.turnLimit ?? null, result);
	const errors = extensionErrorLog();
	let extensions: LoadExtensionsResult;
	if (options.extensionPaths.length === 0) {
		extensions = { extensions: [guard], errors: [], runtime: createExtensionRuntime() };
	} else {
		const loader = new DefaultResourceLoader({
			cwd: options.cwd,
			agentDir: options.agentDir,
			settingsManager,
			noExtensions: true,
			additionalExtensionPaths: [...options.extensionPaths],
			noSkills: true,
			noPromptTemplates: true,
			noThemes: true,
			noContextFiles: true,
			extensionsOverride: (base) => ({ ...base, extensions: [guard, ...base.extensions] }),
		});
		await loader.reload();
		extensions = loader.getExtensions();
		for (const failed of extensions.errors) errors.add({ path: failed.path, event: "load", error: failed.error });
	}
	const sessionManager = options.forkFile
		? SessionManager.forkFrom(options.forkFile, options.cwd, options.sessionDir)
		: options.resumeFile
			? SessionManager.open(options.resumeFile, options.sessionDir, options.cwd)
			: SessionManager.create(options.cwd, options.sessionDir);
	const { session } = await createAgentSession({
		cwd: options.cwd,
		agentDir: options.agentDir,
		modelRuntime: options.modelRuntime,
		model,
		thinkingLevel: options.thinkingLevel,
		resourceLoader: childResourceLoader(options.systemPrompt, options.skills, () => extensions),
		tools: result ? [...options.tools, SUBMIT_RESULT_TOOL] : [...options.tools],
		customTools: options.customTools,
		sessionManager,
		settingsManager,
	});
	// pi reports a handler that threw to this listener and goes on; the run's result names it.
	if (options.extensionPaths.length > 0) await session.bindExtensions({ onError: (error) => errors.add({ ...error, path: error.extensionPath }) });
	return sessionHandle(session, result?.state ?? null, errors.list);
}

function sessionHandle(session: AgentSession, structured: StructuredState | null, diagnostics: () => Diagnostic[]): ChildHandle {
	const turn = { n: 0 };
	/** Steers pi has not queued yet (it runs input handlers first). */
	const steering = new Set<Promise<unknown>>();
	return {
		transcript: session.sessionManager.getSessionFile() ?? null,
		subscribe(listener) {
			return session.subscribe((event) => {
				const translated = translate(event, turn);
				if (translated) listener(translated);
			});
		},
		run: (prompt) => session.prompt(prompt),
		async steer(text) {
			const queued = session.steer(text);
			steering.add(queued);
			try {
				await queued;
			} finally {
				steering.delete(queued);
			}
		},
		async unread() {
			await Promise.allSettled([...steering]);
			return [...session.getSteeringMessages()];
		},
		abort: () => session.abort(),
		lastText: () => session.getLastAssistantText() ?? null,
		structured: () => (structured ? { ...structured } : null),
		usage() {
			const stats = session.getSessionStats();
			return {
				input: stats.tokens.input,
				output: stats.tokens.output,
				cacheRead: stats.tokens.cacheRead,
				cacheWrite: stats.tokens.cacheWrite,
				cost: stats.cost,
			};
		},
		contextUsage() {
			const usage = session.getContextUsage();
			return usage ? { tokens: usage.tokens, window: usage.contextWindow, percent: usage.percent } : null;
		},
		messages: () => childMessages(session.messages),
		dispose: () => session.dispose(),
		diagnostics,
	};
}

/** Where a parent's children keep their transcripts (spec 04 "Transcripts"). */
export function transcriptDir(ctx: ExtensionContext, agentDir: string): string {
	const file = ctx.sessionManager.getSessionFile();
	if (file) return childrenDir(ctx.sessionManager.getSessionDir(), ctx.sessionManager.getSessionId());
	return join(agentDir, "cadre", "transcripts");
}

/** The transcripts and run records of persisted parent session `sessionId` in pi's `sessionDir` (ADR 0045). */
export function childrenDir(sessionDir: string, sessionId: string): string {
	return join(sessionDir, "cadre", sessionId);
}

/** Where pi's documentation lives (the `<docs>` section of pi's default prompt). */
export function piDocPaths(): { readme: string; docs: string; examples: string } {
	return { readme: getReadmePath(), docs: getDocsPath(), examples: getExamplesPath() };
}

// ── Headless parent ──
// `cadre run` (ADR 0090): a parent pi session for a directory without pi's UI — built as `pi -p`
// builds its session there (the user's settings, models, credentials, pi's project trust, the
// user's extensions and what they register, skills, context files, pi's system prompt), never
// prompted, so its children are spawned exactly as the extension spawns them. Owned by the CLI
// run area.

import {
	createAgentSessionFromServices,
	createAgentSessionRuntime,
	createAgentSessionServices,
	hasTrustRequiringProjectResources,
	ProjectTrustStore,
	type ExtensionAPI,
	type ExtensionCommandContext,
} from "@earendil-works/pi-coding-agent";

/** Options for {@link createHeadlessParent}. */
export interface HeadlessParentOptions {
	/** The parent's cwd (absolute). */
	cwd: string;
	agentDir: string;
	/** `--trust-project`: trust the project whatever pi decided; otherwise pi's own decision. */
	trustProject?: boolean;
}

/** A parent session as an extension sees its own: the API and a context. */
export interface HeadlessParent {
	pi: ExtensionAPI;
	ctx: ExtensionCommandContext;
	/** The extensions pi loaded for the parent, as children reload them (cadre's own left out). */
	childExtensions(exclude: readonly string[]): ChildExtensionSet;
	/** pi's startup diagnostics (extension load errors, settings problems), in pi's words. */
	diagnostics: { type: string; message: string }[];
	/** The project has trust-gated resources (`.pi/` settings, extensions, …) that were not loaded: it is not trusted. */
	untrustedResources: boolean;
	/** End the session as pi does at exit (`session_shutdown`, credential writes settled). */
	dispose(): Promise<void>;
}

/**
 * Whether pi would trust the project at `cwd` without asking anyone (pi's print mode): a project
 * with nothing trust-gated is trusted unless the user said otherwise; else the user's stored
 * decision, else settings `defaultProjectTrust: "always"`; else not. (An extension's
 * `project_trust` answer is not asked: it could only widen.)
 */
export function headlessProjectTrust(cwd: string, agentDir: string): boolean {
	const stored = new ProjectTrustStore(agentDir).get(cwd);
	if (!hasTrustRequiringProjectResources(cwd)) return stored ?? true;
	if (stored !== null) return stored;
	return SettingsManager.create(cwd, agentDir, { projectTrusted: false }).getDefaultProjectTrust() === "always";
}

/**
 * The parent session `cadre run` spawns from, for `cwd`: in memory, never prompted, its extensions
 * bound as in `pi -p` (their `session_start` runs, providers they register are in its model
 * runtime). cadre's own extension, if the user's pi loads it, is left out (depth 1). pi's CLI-only
 * built-ins (code mode, tool search, MCP) are not loaded: children never get them.
 */
export async function createHeadlessParent(options: HeadlessParentOptions): Promise<HeadlessParent> {
	const projectTrusted = options.trustProject === true || headlessProjectTrust(options.cwd, options.agentDir);
	let api: ExtensionAPI | null = null;
	// The parent's extension API, as cadre's extension gets it in a pi session.
	const probe = {
		name: "cadre-run",
		hidden: true,
		factory: (pi: ExtensionAPI) => {
			api = pi;
		},
	};
	let extensions: Extension[] = [];
	const runtime = await createAgentSessionRuntime(
		async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
			const services = await createAgentSessionServices({
				cwd,
				agentDir,
				settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted }),
				resourceLoaderOptions: {
					extensionFactories: [probe],
					extensionsOverride: (base) => ({ ...base, extensions: base.extensions.filter((extension) => !isCadre(extension)) }),
				},
			});
			extensions = services.resourceLoader.getExtensions().extensions;
			const created = await createAgentSessionFromServices({ services, sessionManager, sessionStartEvent });
			const loadErrors = services.resourceLoader
				.getExtensions()
				.errors.map(({ path, error }) => ({ type: "error" as const, message: `Failed to load extension "${path}": ${error}` }));
			return { ...created, services, diagnostics: [...services.diagnostics, ...loadErrors] };
		},
		{ cwd: options.cwd, agentDir: options.agentDir, sessionManager: SessionManager.inMemory(options.cwd) },
	);
	await runtime.session.bindExtensions({ mode: "print" });
	if (!api) throw new Error("cadre: pi did not load the parent session's extensions.");
	return {
		pi: api,
		// A command's context: an extension's, plus the parent's prompt options.
		ctx: runtime.session.extensionRunner.createCommandContext(),
		childExtensions: (exclude) => childExtensionSet(extensions, exclude),
		diagnostics: runtime.diagnostics.map((d) => ({ type: d.type, message: d.message })),
		untrustedResources: !projectTrusted && hasTrustRequiringProjectResources(options.cwd),
		dispose: () => runtime.dispose(),
	};
}

// ── Prompt ──
// pi's own guidance for its built-in tools (one-line snippet, guideline bullets), for the header
// of a child's prompt when no parent session supplies `toolSnippets`/`toolGuidelines` (the CLI).
// Owned by the prompt area (src/prompt/tool-guidance.ts renders it).

import {
	createBashToolDefinition as piBashTool,
	createEditToolDefinition as piEditTool,
	createFindToolDefinition as piFindTool,
	createGrepToolDefinition as piGrepTool,
	createLsToolDefinition as piLsTool,
	createPowerShellToolDefinition as piPowerShellTool,
	createReadToolDefinition as piReadTool,
	createWriteToolDefinition as piWriteTool,
} from "@earendil-works/pi-coding-agent";
import type { ToolGuidanceSource } from "../prompt/tool-guidance.ts";

/** Snippets and guidelines of pi's built-in tools, as pi writes them into its default prompt. */
export function builtinToolGuidance(cwd: string): ToolGuidanceSource {
	const snippets: Record<string, string> = Object.create(null);
	const guidelines: Record<string, string[]> = Object.create(null);
	for (const create of [piReadTool, piBashTool, piPowerShellTool, piEditTool, piWriteTool, piGrepTool, piFindTool, piLsTool]) {
		const tool = create(cwd);
		if (tool.promptSnippet) snippets[tool.name] = tool.promptSnippet;
		if (tool.promptGuidelines?.length) guidelines[tool.name] = [...tool.promptGuidelines];
	}
	return { snippets, guidelines };
}

// ── Conversations ──
// A child's conversation as plain data for the TUI's conversation viewer (issue 11): the live
// session's messages, or a finished run's transcript read back through pi's SessionManager.
// Owned by the pi UI area (src/hosts/pi/ui/).

/** One message of a child's conversation. Text is exactly what pi holds: the UI makes it safe to show. */
export type ChildMessage =
	| { role: "user"; text: string }
	| { role: "assistant"; text: string; thinking: string; toolCalls: { id: string; name: string; args: unknown }[]; stopReason: string; errorMessage: string | null }
	| { role: "toolResult"; toolCallId: string; toolName: string; text: string; isError: boolean }
	| { role: "custom"; customType: string; text: string };

type Part = { type: string; text?: string; thinking?: string; id?: string; name?: string; arguments?: unknown };

function partsOf(content: unknown): Part[] {
	if (typeof content === "string") return [{ type: "text", text: content }];
	return Array.isArray(content) ? (content as Part[]) : [];
}

function joined(parts: Part[], type: "text" | "thinking"): string {
	return parts
		.filter((part) => part.type === type)
		.map((part) => (type === "text" ? part.text : part.thinking) ?? "")
		.join("");
}

/** pi's agent messages (user, assistant, tool results, custom) as {@link ChildMessage}s; others are left out. */
export function childMessages(messages: readonly unknown[]): ChildMessage[] {
	const out: ChildMessage[] = [];
	for (const raw of messages) {
		const message = raw as { role?: string; content?: unknown; stopReason?: string; errorMessage?: string; toolCallId?: string; toolName?: string; isError?: boolean; customType?: string };
		const parts = partsOf(message.content);
		if (message.role === "user") out.push({ role: "user", text: joined(parts, "text") });
		else if (message.role === "assistant") {
			out.push({
				role: "assistant",
				text: joined(parts, "text"),
				thinking: joined(parts, "thinking"),
				toolCalls: parts.filter((part) => part.type === "toolCall").map((part) => ({ id: part.id ?? "", name: part.name ?? "", args: part.arguments ?? {} })),
				stopReason: message.stopReason ?? "stop",
				errorMessage: message.errorMessage ?? null,
			});
		} else if (message.role === "toolResult") {
			out.push({ role: "toolResult", toolCallId: message.toolCallId ?? "", toolName: message.toolName ?? "", text: joined(parts, "text"), isError: message.isError === true });
		} else if (message.role === "custom") out.push({ role: "custom", customType: message.customType ?? "", text: joined(parts, "text") });
	}
	return out;
}

/** The largest transcript the conversation viewer reads back (64 MiB). */
export const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

/** A finished run's conversation from its transcript: a regular file within the size bound, else empty. */
export function readTranscript(path: string): ChildMessage[] {
	try {
		const stat = lstatSync(path);
		if (!stat.isFile() || stat.size > MAX_TRANSCRIPT_BYTES) return [];
		return childMessages(SessionManager.open(path).buildSessionContext().messages);
	} catch {
		return [];
	}
}
