/**
 * The model catalog resolution consults (spec 02 "Models"): a synchronous snapshot over pi's
 * ModelRuntime (models.json in the agent dir, pi's built-in catalog, credentials from pi's auth
 * and the environment; never the network). Names resolve through pi's own `--model` resolver,
 * with two differences: the model must have credentials, and an id pi would synthesize for a
 * known provider ("Using custom model id") counts as unknown. The runtime reuses
 * `catalogFromRuntime` with the parent session's live ModelRuntime; availability that pi's
 * asynchronous snapshot has not settled is checked with pi (`withAvailableModels`, ADR 0076).
 */

import { join as joinPath } from "node:path";
import { clampThinkingLevel } from "@earendil-works/pi-ai/models";
import { ModelRuntime as PiModelRuntime, resolveCliModel } from "@earendil-works/pi-coding-agent";
import type { ThinkingLevel as CadreThinkingLevel } from "../../core/values.ts";
import type { ModelCatalog, ModelLookup } from "../../resolve/types.ts";

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
	const fail = (name: string, reason: "unknown" | "no-credentials", message: string, id?: string): ModelLookup => ({
		...(id ? { id } : {}),
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
			return fail(name, "no-credentials", `${full} has no credentials (log in with pi or set the provider's API key)`, full);
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
