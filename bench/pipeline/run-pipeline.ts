export async function runPipeline(_opts: { quick: boolean; sizes?: number[]; repeats?: number }): Promise<void> {
  throw new Error('pipeline bench: not written yet');
}
