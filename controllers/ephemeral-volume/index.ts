export { ephemeralVolumeController, type EphemeralVolumeControllerOptions } from './ephemeral-volume.js';
