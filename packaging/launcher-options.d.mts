export declare function launcherOptions(file: string): { env: Record<string, string>; nodeArgs: string[] };
