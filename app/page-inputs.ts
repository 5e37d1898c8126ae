/**
 * Files into the page: the file input (the panel's "open file") and drag and
 * drop anywhere on the window (the #drop overlay while dragging), a dropped
 * folder's files included (dropped-files.ts).
 */
import { droppedFiles, fromList, type PathedFile } from './dropped-files';

export function wireFileInputs(file: HTMLInputElement, drop: HTMLElement, open: (files: readonly PathedFile[]) => void): void {
  file.addEventListener('change', () => {
    open(fromList(file.files));
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
    if (e.dataTransfer) void droppedFiles(e.dataTransfer).then(open);
  });
}
