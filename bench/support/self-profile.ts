// A CPU profile of this very process over a window of its choosing (the inspector's Profiler
// domain, in process), where `--cpu-prof` could only give start to exit.
import { Session, type Profiler } from 'node:inspector';

/** Starts the V8 profiler; the returned function stops it and hands over the profile. */
export async function startProfile(): Promise<() => Promise<Profiler.Profile>> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string) => new Promise<T>((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result as T))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return async () => {
    const { profile } = await post<Profiler.StopReturnType>('Profiler.stop');
    session.disconnect();
    return profile;
  };
}
