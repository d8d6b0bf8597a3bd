"""The frame reader: frames split anywhere, and garbage refused."""
import unittest

from agent_wire import CHUNK, DATA, END, FROM_HOST, REQUEST, FrameReader, ProtocolError, credit_frame, frame, read_credit


class FrameReaderTest(unittest.TestCase):
    def test_reassembles_frames_split_at_every_byte(self):
        stream = frame(REQUEST, 2, b'{"op":"remove"}') + frame(DATA, 4, bytes(range(256))) + frame(END, 4) + credit_frame(6, 70000)
        reader = FrameReader(FROM_HOST)
        frames = []
        for index in range(len(stream)):
            frames.extend(reader.feed(stream[index : index + 1]))
        self.assertEqual([kind for kind, _, _ in frames], [REQUEST, DATA, END, 7])
        self.assertEqual(frames[1][2], bytes(range(256)))
        self.assertEqual(read_credit(frames[3][2]), 70000)

    def test_refuses_an_unknown_kind_and_an_oversized_frame(self):
        with self.assertRaises(ProtocolError):
            FrameReader(FROM_HOST).feed(b"\xff" + b"\0" * 8)
        with self.assertRaises(ProtocolError):
            FrameReader(FROM_HOST).feed(frame(DATA, 2, b"x" * (CHUNK + 1)))
        with self.assertRaises(ProtocolError):
            FrameReader(FROM_HOST).feed(frame(END, 2, b"x"))


if __name__ == "__main__":
    unittest.main()
