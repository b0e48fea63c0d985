/**
 * The description an entry shows the parent model (spec 01): the `description` key, else for a
 * definition the first sentence of the first prose paragraph of the effective body (≤ 200
 * characters), for a persona that whole paragraph, else the name.
 */
import type { Entry } from "./types.ts";

const MAX_SENTENCE = 200;

/** The first paragraph of Markdown that is prose: no heading, fence, list, quote, table or HTML. */
export function firstProseParagraph(markdown: string): string | null {
	const lines = markdown.split(/\r?\n/);
	let inFence = false;
	let paragraph: string[] = [];
	const flush = (): string | null => {
		const text = paragraph.join(" ").replace(/\s+/g, " ").trim();
		paragraph = [];
		return text === "" ? null : text;
	};
	for (const line of lines) {
		const t = line.trim();
		if (/^(```|~~~)/.test(t)) {
			const done = flush();
			if (done) return done;
			inFence = !inFence;
			continue;
		}
		if (inFence) continue;
		if (t === "") {
			const done = flush();
			if (done) return done;
			continue;
		}
		if (paragraph.length === 0 && /^(#|[-*+] |\d+[.)] |>|\||<|---|\*\*\*|___)/.test(t)) continue;
		paragraph.push(t);
	}
	return flush();
}

/** The first sentence of `text`, cut at a word boundary to at most `max` characters. */
export function firstSentence(text: string, max = MAX_SENTENCE): string {
	const match = /^(.*?[.!?])(\s|$)/.exec(text);
	const sentence = (match?.[1] ?? text).trim();
	if (sentence.length <= max) return sentence;
	const cut = sentence.slice(0, max - 1);
	const space = cut.lastIndexOf(" ");
	return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The description of a merged definition, role or persona. */
export function describeEntry(entry: Entry): string {
	const explicit = (entry.keys as { description?: { value: string } }).description?.value;
	if (explicit) return explicit;
	const paragraph = entry.body ? firstProseParagraph(entry.body.value) : null;
	if (paragraph === null) return entry.name;
	return entry.kind === "persona" ? paragraph : firstSentence(paragraph);
}
