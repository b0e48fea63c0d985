/**
 * The names of cadre's own tools in a parent pi session (their schemas are in
 * src/hosts/pi/tools.ts). A parent's tools with these names are never a child's (depth 1) and never
 * count as the parent's tools. Kept apart so spawning does not load the tool schemas.
 */
export const SUBAGENT_TOOL = "subagent";
export const RESULT_TOOL = "get_subagent_result";
export const STEER_TOOL = "steer_subagent";
/** Children never get these (depth 1). */
export const SPAWN_TOOLS: ReadonlySet<string> = new Set([SUBAGENT_TOOL, RESULT_TOOL, STEER_TOOL]);
