/** The edgesync version, printed by `--version` and exported as `edgesync_build_info`. */
export const VERSION = '0.1.0';
