// The release version, injected by the bundler; source runs (tests importing modules) say "dev".

declare const __DOGSLED_VERSION__: string | undefined;

export const VERSION: string = typeof __DOGSLED_VERSION__ === 'string' ? __DOGSLED_VERSION__ : 'dev';
