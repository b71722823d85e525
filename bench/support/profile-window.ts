// A V8 CPU profile cut to a window of its samples: the bench's steady window without the start
// (registrations) and the stop. Offsets are seconds from the profile's end, since the benches stop
// their daemons right after the last window:
//   node --import tsx bench/support/profile-window.ts <file>.cpuprofile <fromEndS> <toEndS> [out]
// keeps the samples taken between fromEndS and toEndS seconds before the profile's end (e.g. 70 10).
import { readFileSync, writeFileSync } from 'node:fs';
import { splitProfile, type CpuProfile } from './profile-split.js';

/** The profile with only the samples taken in [endTime - fromEndS, endTime - toEndS]. */
export function profileWindow(profile: CpuProfile, fromEndS: number, toEndS: number): CpuProfile {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const from = profile.endTime - fromEndS * 1e6;
  const to = profile.endTime - toEndS * 1e6;
  const kept: number[] = [];
  const keptDeltas: number[] = [];
  let at = profile.startTime;
  let last = from;
  for (let i = 0; i < samples.length; i++) {
    at += deltas[i] ?? 0;
    if (at < from || at > to) continue;
    kept.push(samples[i]!);
    keptDeltas.push(at - last);
    last = at;
  }
  return { ...profile, startTime: from, endTime: to, samples: kept, timeDeltas: keptDeltas };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, fromEnd, toEnd, out] = process.argv.slice(2);
  if (file === undefined || fromEnd === undefined || toEnd === undefined) throw new Error('usage: profile-window.ts <file>.cpuprofile <fromEndS> <toEndS> [out]');
  const cut = profileWindow(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(fromEnd), Number(toEnd));
  if (out) writeFileSync(out, JSON.stringify(cut));
  console.log(JSON.stringify(splitProfile(cut, undefined, 40), null, 2));
}
