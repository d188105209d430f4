/* Writes baseline JPEGs that Pillow's encoder does not: restart markers every N MCUs, and one
   sequential scan per component (non-interleaved).  Used once by make_cases.py (libjpeg-dev):
   jpeg_variants RESTART_MCUS PER_COMPONENT_SCANS < H W RGB-bytes > file.jpg */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

int main(int argc, char **argv) {
  struct jpeg_compress_struct c;
  struct jpeg_error_mgr err;
  jpeg_scan_info scans[3];
  int h, w, y, k;
  unsigned char *px;
  if (argc != 3 || scanf("%d %d", &h, &w) != 2) return 2;
  getchar();
  px = malloc((size_t)h * (size_t)w * 3);
  if (!px || fread(px, 3, (size_t)h * (size_t)w, stdin) != (size_t)h * (size_t)w) return 2;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, stdout);
  c.image_width = (JDIMENSION)w;
  c.image_height = (JDIMENSION)h;
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 80, TRUE);
  c.restart_interval = (unsigned)atoi(argv[1]);
  if (atoi(argv[2])) {
    for (k = 0; k < 3; k++) {
      scans[k].comps_in_scan = 1;
      scans[k].component_index[0] = k;
      scans[k].Ss = 0, scans[k].Se = 63, scans[k].Ah = 0, scans[k].Al = 0;
    }
    c.scan_info = scans;
    c.num_scans = 3;
  }
  jpeg_start_compress(&c, TRUE);
  for (y = 0; y < h; y++) {
    JSAMPROW r = px + (size_t)y * (size_t)w * 3;
    jpeg_write_scanlines(&c, &r, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  return 0;
}
