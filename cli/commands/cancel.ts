import { DogsledError } from '../../service/errors.js';
import type { CliContext } from '../context.js';
export async function cancelCommand(_id: string, _flags: object, _ctx: CliContext): Promise<number> {
  throw new DogsledError('cancel: being built');
}
