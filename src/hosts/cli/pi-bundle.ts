/**
 * `cadre run` loads pi's bundled build — the one the `pi` command itself runs — instead of the
 * package's module tree: the same code, about three times faster to load (ADR 0091). A resolve
 * hook maps the package's entry to `dist/bundle/index.js` beside it when that file exists (any
 * other pi layout resolves as usual), and Node's compile cache is on, as in `pi`. Only the
 * command line does this: inside pi, extensions get pi's own instance.
 */
import { existsSync } from "node:fs";
import { enableCompileCache, registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

const PI_PACKAGE = "@earendil-works/pi-coding-agent";

let registered = false;

/** The bundle beside pi's resolved entry (`…/dist/index.js` → `…/dist/bundle/index.js`), or null. */
export function piBundleOf(entryUrl: string): string | null {
	if (!entryUrl.startsWith("file:") || !entryUrl.endsWith("/dist/index.js")) return null;
	const bundle = new URL("./bundle/index.js", entryUrl);
	return existsSync(fileURLToPath(bundle)) ? bundle.href : null;
}

/** From now on, `import "@earendil-works/pi-coding-agent"` loads pi's bundle. Call before pi is imported. */
export function usePiBundle(): void {
	if (registered) return;
	registered = true;
	enableCompileCache();
	let bundle: string | null | undefined;
	registerHooks({
		resolve(specifier, context, nextResolve) {
			const resolved = nextResolve(specifier, context);
			if (specifier !== PI_PACKAGE) return resolved;
			bundle ??= piBundleOf(resolved.url);
			return bundle ? { ...resolved, url: bundle } : resolved;
		},
	});
}
