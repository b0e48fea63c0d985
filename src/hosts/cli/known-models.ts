/**
 * The models `cadre check` holds `model` keys against (ADR 0107): the user's `models.json` (read as
 * JSON, confined and size-bounded), and — only when a key names a model models.json does not —
 * pi-ai's generated built-in list, imported on first use (data and provider factories, never pi's
 * SDK). Either source that cannot be read adds nothing; no model is then warned about from it.
 */
import { join } from "node:path";
import { type Diagnostic } from "../../core/diagnostics.ts";
import { checkModelNames, type KnownModel, matchesKnownModel, type ModelKey, modelPart } from "../../files/model-names.ts";
import { readFileUnder } from "../../files/read-confined.ts";
import type { Entry, LoadResult } from "../../files/types.ts";
import { positionOf } from "../../resolve/slots.ts";

const MAX_MODELS_JSON = 1024 * 1024;

/** The models `models.json` in `agentDir` defines, by provider; none when it is absent or unreadable. */
export function modelsJsonModels(agentDir: string): KnownModel[] {
	const read = readFileUnder(join(agentDir, "models.json"), { confine: "any", root: "", maxBytes: MAX_MODELS_JSON });
	if (!read.ok) return [];
	try {
		const providers = (JSON.parse(read.text) as { providers?: Record<string, { models?: { id?: unknown; name?: unknown }[] }> }).providers ?? {};
		return Object.entries(providers).flatMap(([provider, spec]) =>
			(Array.isArray(spec?.models) ? spec.models : []).flatMap((m) => (typeof m?.id === "string" ? [{ provider, id: m.id, ...(typeof m.name === "string" ? { name: m.name } : {}) }] : [])),
		);
	} catch {
		return [];
	}
}

/** pi's built-in models, loaded lazily (the adapter's builtin-models.ts); none when pi-ai cannot be loaded. */
export async function builtinModels(): Promise<KnownModel[]> {
	return (await import("../../runtime/pi/builtin-models.ts")).builtinModels();
}

/** Every `model` key written in a loaded entry's file, with its position. */
export function modelKeys(loaded: LoadResult): ModelKey[] {
	const entries: Entry[] = [...loaded.definitions.values(), ...loaded.roles.values(), ...loaded.personas.values()];
	return entries.flatMap((entry) => {
		const key = (entry.keys as { model?: { value: unknown; source: string; column?: number } }).model;
		if (!key || typeof key.value !== "string") return [];
		const at = positionOf(key.source);
		if (at.file === null || at.line === null) return [];
		return [{ value: key.value, kind: entry.kind, name: entry.name, file: at.file, line: at.line, column: key.column ?? 1 }];
	});
}

/** `model-unknown` warnings for the loaded entries; pi-ai is imported only for a name models.json does not match. */
export async function modelDiagnostics(loaded: LoadResult): Promise<Diagnostic[]> {
	const keys = modelKeys(loaded);
	const local = modelsJsonModels(loaded.agentDir);
	const unmatched = keys.filter((key) => {
		const model = modelPart(key.value);
		return model !== null && !matchesKnownModel(model, local);
	});
	if (unmatched.length === 0) return [];
	return checkModelNames(unmatched, [...local, ...(await builtinModels())]);
}
