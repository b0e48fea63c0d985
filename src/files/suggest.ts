/**
 * "Did you mean" for unknown keys: the nearest known key by edit distance, and the snake_case (or
 * camelCase, for settings) spelling of a known key written in the other convention.
 */

/** Levenshtein distance between two short strings. */
export function editDistance(a: string, b: string): number {
	if (a === b) return 0;
	let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
	for (let i = 1; i <= a.length; i++) {
		const cur = [i];
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
		}
		prev = cur;
	}
	return prev[b.length] ?? 0;
}

/** `maxTurns` / `max-turns` → `max_turns`. */
export function toSnakeCase(key: string): string {
	return key
		.replace(/([a-z0-9])([A-Z])/g, "$1_$2")
		.replaceAll("-", "_")
		.toLowerCase();
}

/** `max_turns` / `max-turns` → `maxTurns`. */
export function toCamelCase(key: string): string {
	return key.toLowerCase().replace(/[_-]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export interface Suggestion {
	key: string;
	/** True when the key is a known key in the other case convention (not a typo). */
	convention: boolean;
}

/**
 * The known key the user most likely meant, or null. `style` is the convention of the known keys.
 */
export function suggestKey(unknown: string, known: readonly string[], style: "snake" | "camel"): Suggestion | null {
	const converted = style === "snake" ? toSnakeCase(unknown) : toCamelCase(unknown);
	if (converted !== unknown && known.includes(converted)) return { key: converted, convention: true };
	let best: string | null = null;
	let bestDistance = Number.POSITIVE_INFINITY;
	for (const candidate of known) {
		const d = editDistance(converted, candidate);
		if (d < bestDistance) {
			best = candidate;
			bestDistance = d;
		}
	}
	if (best === null) return null;
	const limit = Math.max(2, Math.floor(best.length / 3));
	return bestDistance <= limit ? { key: best, convention: false } : null;
}
