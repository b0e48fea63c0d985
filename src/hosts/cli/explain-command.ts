/**
 * `cadre explain TYPE` (spec 06): resolve a spawn without running it and print the explain report
 * (`src/resolve/explain.ts`); `--json` prints the documented object (docs/cli-explain.md).
 * Exit 1 when the spawn would be refused.
 */
import { safeFields } from "../../core/terminal-text.ts";
import { explain, renderExplain } from "../../resolve/explain.ts";
import { type CliIo, EXIT_FAILED, EXIT_OK } from "./io.ts";
import { useColor } from "./list-command.ts";
import type { RequestFlagOptions } from "./options.ts";
import { buildCliResolveInput, cliDirs } from "./request-context.ts";
import { outWidth } from "./width.ts";

/** `--parent TYPE` (repeatable, outermost first): the spawning chain of a nested spawn (issue 21). */
export async function runExplain(type: string, opts: RequestFlagOptions & { parent?: string[] }, io: CliIo): Promise<number> {
	const input = await buildCliResolveInput(type, opts, io);
	const output = explain(input, opts.parent ?? [], cliDirs(io));
	// The report quotes the repository's files: every string shown escaped, then styled (ADR 0075).
	io.out(opts.json ? `${JSON.stringify(output, null, 2)}\n` : renderExplain(safeFields(output), useColor(io), outWidth(io)));
	return output.refused ? EXIT_FAILED : EXIT_OK;
}
