/**
 * Files into the page: the file input (the panel's "open file") and drag and
 * drop anywhere on the window (the #drop overlay while dragging), a dropped
 * folder's files included (dropped-files.ts). A drop with Shift held asks for the
 * files as an object beside the scene (`asObject`: the panel's Objects folder).
 */
import { droppedFiles, fromList, type PathedFile } from './dropped-files';

export function wireFileInputs(file: HTMLInputElement, drop: HTMLElement, open: (files: readonly PathedFile[], asObject: boolean) => void): void {
  file.addEventListener('change', () => {
    open(fromList(file.files), false);
    file.value = '';
  });
  let depth = 0;
  window.addEventListener('dragenter', (e) => {
    e.preventDefault();
    depth++;
    drop.hidden = false;
  });
  window.addEventListener('dragleave', () => {
    if (--depth <= 0) {
      depth = 0;
      drop.hidden = true;
    }
  });
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    drop.hidden = true;
    const asObject = e.shiftKey;
    if (e.dataTransfer) void droppedFiles(e.dataTransfer).then((files) => open(files, asObject));
  });
}
