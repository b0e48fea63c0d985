/**
 * pi's own guidance for its built-in tools (one-line snippet, guideline bullets), for the header
 * of a child's prompt when no parent session supplies `toolSnippets`/`toolGuidelines` (the CLI).
 * Owned by the prompt area (src/prompt/tool-guidance.ts renders it).
 */

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
import type { ToolGuidanceSource } from "../../prompt/tool-guidance.ts";

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
