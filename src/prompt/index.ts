/**
 * The prompt area's public surface: assembly, the identity cut, project context and the pi
 * option mapping. Hosts import from here.
 */
export { assemblePrompt, sharedBoundary } from "./assemble.ts";
export { GENERIC_IDENTITY, type IdentityCut, cutIdentityFromOptions, cutIdentityFromText, parsePiPrompt } from "./identity-cut.ts";
export { type PiPromptOptionsLike, parentPromptOptionsFromPi } from "./pi-options.ts";
export { type ContextFile, type PiDocPaths, PI_DEFAULT_PREAMBLE } from "./pi-prompt-shape.ts";
export { renderProjectContext } from "./project-context.ts";
export { findContextFiles, findGitPaths, readGitBranch } from "./project-files.ts";
export { type ToolGuidanceSource, toolGuidanceLines } from "./tool-guidance.ts";
export type * from "./types.ts";
