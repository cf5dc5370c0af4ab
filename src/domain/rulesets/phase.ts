/** The one ruleset phase logexport serves: custom log fields. */
export const customFieldsPhase = 'http_log_custom_fields';
