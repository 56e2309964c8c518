import { DogsledError } from '../../service/errors.js';
import type { CliContext } from '../context.js';
export async function runJobCommand(_command: string[], _flags: object, _ctx: CliContext): Promise<number> {
  throw new DogsledError('run: being built');
}
