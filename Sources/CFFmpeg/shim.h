#ifndef VISIONTASKS_CFFMPEG_SHIM_H
#define VISIONTASKS_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavdevice/avdevice.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/error.h>
#include <libavutil/display.h>
#include <math.h>

// The display matrix moved from the stream's side data to the codec parameters' coded side
// data in FFmpeg 6.1 (libavcodec 60.29); these two wrappers hide which one this FFmpeg has.

/// The clockwise rotation, in degrees, a player applies to the stream's frames (0 when none).
static inline double vt_stream_display_rotation(const AVStream *stream) {
    const uint8_t *data = NULL;
    size_t size = 0;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    const AVPacketSideData *side = av_packet_side_data_get(
        stream->codecpar->coded_side_data, stream->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX);
    if (side) { data = side->data; size = side->size; }
#else
    data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
#endif
    if (!data || size < 9 * sizeof(int32_t)) return 0;
    double counterclockwise = av_display_rotation_get((const int32_t *)data);
    return isnan(counterclockwise) ? 0 : -counterclockwise;
}

/// Tags a stream being written with a clockwise display rotation; 0 on success.
static inline int vt_stream_set_display_rotation(AVStream *stream, double clockwiseDegrees) {
    int32_t *matrix = NULL;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    AVPacketSideData *side = av_packet_side_data_new(
        &stream->codecpar->coded_side_data, &stream->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX,
        9 * sizeof(int32_t), 0);
    if (!side) return -1;
    matrix = (int32_t *)side->data;
#else
    matrix = (int32_t *)av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
    if (!matrix) return -1;
#endif
    // av_display_rotation_set takes the clockwise angle; av_display_rotation_get returns the
    // counterclockwise one (ffprobe shows "rotate=90" as "rotation of -90.00 degrees").
    av_display_rotation_set(matrix, clockwiseDegrees);
    return 0;
}
#endif
