/**
 * The names of cadre's own delegation tools (issue 21). A definition opts its child into
 * delegation by naming `subagent` in its `tools`; the child then gets all three, when its depth
 * allows. Core names, so the loader, the resolver and the hosts agree.
 */
export const SUBAGENT_TOOL = "subagent";
export const RESULT_TOOL = "get_subagent_result";
export const STEER_TOOL = "steer_subagent";

/** The delegation tools, in the order a child gets them. */
export const DELEGATION_TOOLS: readonly string[] = [SUBAGENT_TOOL, RESULT_TOOL, STEER_TOOL];
