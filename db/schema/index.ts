// One file per table family; later families (atlas_*, agents_*, mem_*, …) add theirs here.
export * from './ai'
export * from './clients'
export * from './hub'
export * from './ops'
