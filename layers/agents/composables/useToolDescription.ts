// A tool's description in the reader's language: a built-in tool's words are the catalog's
// (`agents.tools.<name>`, English as the engine wrote it for the model); an MCP server's tool
// (`mcp__server__tool`) keeps the words its peer wrote. Call it in a setup, before any await.
export function useToolDescription() {
  const word = useCatalogWord()
  return (tool: { name: string, description: string }) => word('agents.tools', tool.name, tool.description)
}
