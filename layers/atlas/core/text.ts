// The text helpers moved down to the spawn engine (which atlas builds on); atlas keeps its paths.
export * from '#layers/spawn/core/text'
