// Types of npm-install-output.mjs (plain JavaScript: bootstrap runs it before packages exist).
export declare const NOT_RUN_ON_NODE: RegExp;
export declare function withoutKnownEngineWarnings(stderr: string): string;
