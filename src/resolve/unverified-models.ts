/**
 * A model catalog for previews (`explain`, `prompt`; issue 19, ADR 0103): a model pi knows but
 * has no credential for here resolves, marked `unverified`, instead of failing — the resolution is
 * shown as it would be once logged in. A spawn never uses this catalog.
 */
import type { ModelCatalog, ModelLookup } from "./types.ts";

/** `catalog`, with no-credentials lookups answered as unverified models. */
export function unverifiedModels(catalog: ModelCatalog): ModelCatalog {
	return {
		lookup(name: string): ModelLookup {
			const found = catalog.lookup(name);
			if (found.ok || found.reason !== "no-credentials" || !found.id) return found;
			return { ok: true, id: found.id, unverified: true };
		},
		clampThinking: (id, level) => catalog.clampThinking(id, level),
	};
}
