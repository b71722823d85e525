export { persistentVolumeBinder, type PersistentVolumeBinderOptions } from './binder.js';
export { RECYCLER_NAMESPACE, recyclerPodName, type RecyclerOptions } from './recycler.js';
