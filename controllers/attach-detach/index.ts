export { attachDetachController, volumeAttachmentName, type AttachDetachOptions } from './attach-detach.js';
