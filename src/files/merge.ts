/**
 * The scope merge (spec 01 "Priority"): layers of one name, highest priority first, become one
 * entry — settings key by key from the highest layer that supplies a valid value, the body from
 * the highest layer with a nonempty body, the name and scope from the highest layer.
 */
import type { Entry, EntryKind, EntryLayer, Rejected, Sourced } from "./types.ts";

/** Priority of each scope, highest first. */
export const SCOPE_ORDER = ["project-inline", "project", "user-inline", "user", "bundled"] as const;

/** Merges the layers of one name. `layers` must be nonempty and sorted highest priority first. */
export function mergeLayers<K extends EntryKind>(layers: EntryLayer<K>[]): Entry<K> {
	const top = layers[0];
	if (!top) throw new Error("mergeLayers needs at least one layer");
	const keys: Record<string, Sourced<unknown>> = {};
	const invalid: Record<string, Rejected> = {};
	for (const layer of layers) {
		const layerKeys = layer.keys as Record<string, Sourced<unknown> | undefined>;
		const layerInvalid = layer.invalid as Record<string, Rejected | undefined>;
		for (const [key, rejected] of Object.entries(layerInvalid)) {
			// A rejected value counts only above the layer that supplies the key, and the highest one wins.
			if (rejected && !(key in keys) && !(key in invalid)) invalid[key] = rejected;
		}
		for (const [key, value] of Object.entries(layerKeys)) {
			if (value && !(key in keys)) keys[key] = value;
		}
	}
	const body = layers.find((layer) => layer.body !== null)?.body ?? null;
	const merged: Entry<K> = {
		kind: top.kind,
		name: top.name,
		scope: top.scope,
		path: top.path,
		body,
		keys: keys as Entry<K>["keys"],
		invalid: invalid as Entry<K>["invalid"],
		unread: layers.flatMap((layer) => layer.unread ?? []),
		layers,
	};
	if (top.origin !== undefined) merged.origin = top.origin;
	return merged;
}
