// The pipeline's vocabulary moved down to the spawn engine, which writes the same statuses and
// audit actions; atlas keeps its paths.
export * from '#layers/spawn/core/vocabulary'
